from gpudoctor.cli import run

if __name__ == "__main__":
    run()
