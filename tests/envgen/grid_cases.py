"""The grid's described machines beyond the first 19 (test_grid.py): every GPU generation Kepler -> Blackwell, aarch64
servers, Windows, WSL, macOS on both CPUs, CPU-only, old and new drivers, driver branches, pinned old releases."""

from __future__ import annotations

CU118_IMG = "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04"
CU112_IMG = "nvidia/cuda:11.2.2-cudnn8-runtime-ubuntu20.04"
CONDA_IMG = "mambaorg/micromamba:2.3.2"  # CUDA 10.0 / 10.1: NVIDIA deleted their nvidia/cuda images in 2023
TV = {"2.14.1": "torchvision==0.29.1", "2.7.1": "torchvision==0.22.1", "2.0.1": "torchvision==0.15.2", "1.13.1": "torchvision==0.14.1"}


def more_cases(Case):  # noqa: N803 - the dataclass is passed in to keep one definition
    def torch(id, gpus, driver, version, variant, **kw):
        packages = (f"torch=={version}", TV[version]) if version in TV else None
        return Case(id, "torch", gpus, driver, version=version, variant=variant, packages=kw.pop("packages", packages), **kw)

    def tf(id, gpus, driver, version, variant, packages=None, **kw):
        return Case(id, "tensorflow", gpus, driver, version=version, variant=variant, packages=packages, **kw)

    return [
        # Kepler: cuDNN 9 (torch 2.4-2.7 cu118) has no Kepler support -> the cuDNN-8 build of 2.0.1
        torch("k80-r470-torch", ("Tesla K80",), "470.256.02", "2.0.1", "cu117",
              says=("cuDNN 9.1.0.70, which supports compute capability >= 5.0 only (3.7 is older)", "cuDNN 8.5.0.96")),
        torch("k80-r470-torch-pinned-2.0", ("Tesla K80",), "470.82.01", "2.0.1", "cu117", pin="2.0"),
        tf("k80-r470-tf", ("Tesla K80",), "470.256.02", "2.14.1", "and-cuda", ("tensorflow[and-cuda]==2.14.1",), want_python="3.10"),
        tf("k40-r470-tf-2.10", ("Tesla K40",), "470.82.01", "2.10.1", "cuda-11.2-conda", ("tensorflow==2.10.1",), pin="2.10",
           conda_packages=("cudatoolkit=11.2", "cudnn=8.1.0"), docker=("2.10.1", "cuda-11.2-system"), docker_image=CU112_IMG,
           says=("LD_LIBRARY_PATH=$CONDA_PREFIX/lib/",)),
        # TF 1.x / 2.0-2.3 pinned: CUDA 10.0 / 10.1 and cuDNN 7.6 from conda-forge, in the environment and in the container
        tf("gtx1080ti-r418-tf-1.14", ("GeForce GTX 1080 Ti",), "418.87.00", "1.14.0", "cuda-10.0-conda", ("tensorflow-gpu==1.14.0",), pin="1.14",
           want_python="3.7", conda_packages=("cudatoolkit=10.0", "cudnn=7.6.5"), docker=("1.14.0", "cuda-10.0-conda"), docker_image=CONDA_IMG,
           says=("LD_LIBRARY_PATH=$CONDA_PREFIX/lib/", "tensorflow-gpu", "protobuf<3.21 pinned")),
        tf("v100-r410-tf-1.15", ("Tesla V100",), "410.48", "1.15.5", "cuda-10.0-conda", ("tensorflow-gpu==1.15.5",), pin="1.15",
           conda_packages=("cudatoolkit=10.0", "cudnn=7.6.5"), docker=("1.15.5", "cuda-10.0-conda"), docker_image=CONDA_IMG,
           says=("driver 410.48 supports CUDA 10.0",)),
        tf("rtx2080ti-r440-tf-2.3", ("GeForce RTX 2080 Ti",), "440.33.01", "2.3.4", "cuda-10.1-conda", ("tensorflow==2.3.4",), pin="2.3",
           conda_packages=("cudatoolkit=10.1", "cudnn=7.6.5"), docker=("2.3.4", "cuda-10.1-conda"), docker_image=CONDA_IMG,
           says=("libcudnn7=7.6.4.38-1+cuda10.1",)),
        # Maxwell
        torch("gtx980-r535-torch", ("GeForce GTX 980",), "535.104.05", "2.14.1", "cu126",
              says=("torch 2.15.0+cu130 has no code for compute capability 5.2",)),
        tf("gtx980-r535-tf", ("GeForce GTX 980",), "535.104.05", "2.16.2", "and-cuda", ("tensorflow[and-cuda]==2.16.2",),
           says=("tensorflow 2.21.0 has no code for compute capability 5.2",)),
        torch("m60-r470-torch", ("Tesla M60",), "470.82.01", "2.7.1", "cu118"),
        # Pascal
        torch("p100-r535-torch", ("Tesla P100",), "535.104.05", "2.14.1", "cu126"),
        tf("p100-r535-tf", ("Tesla P100",), "535.104.05", "2.21.0", "and-cuda", ("tensorflow[and-cuda]==2.21.0", "nvidia-cudnn-cu12==9.3.0.75"),
           says=("pip installs CUDA 12.9 and cuDNN 9.3.0.75 (pinned)", "the full feature set needs driver >= 575.51.03")),
        torch("gtx1080ti-r580-torch", ("GeForce GTX 1080 Ti",), "580.65.06", "2.14.1", "cu126"),
        torch("p40-r550-branch-torch", ("Tesla P40",), "550", "2.14.1", "cu126", says=("driver R550 supports CUDA 12.4",)),
        # Volta
        torch("v100-r535-torch", ("Tesla V100",), "535.104.05", "2.14.1", "cu126",
              says=("torch 2.15.0+cu130 has no code for compute capability 7.0",)),
        tf("titanv-r580-tf", ("TITAN V",), "580.65.06", "2.21.0", "and-cuda", ("tensorflow[and-cuda]==2.21.0", "nvidia-cudnn-cu12==9.3.0.75")),
        torch("v100-r470-torch-1.13", ("Tesla V100",), "470.82.01", "1.13.1", "cu117", pin="1.13"),
        # Turing
        torch("rtx2080ti-r450-torch", ("GeForce RTX 2080 Ti",), "450.80.02", "2.7.1", "cu118"),
        tf("t4-r460-tf", ("Tesla T4",), "460.32.03", "2.14.1", "and-cuda", ("tensorflow[and-cuda]==2.14.1",), want_python="3.10"),
        tf("t4-r535-tf-2.12", ("Tesla T4",), "535.104.05", "2.12.1", "cuda-11.8-conda", ("tensorflow==2.12.1", "nvidia-cudnn-cu11==8.6.0.163"),
           pin="2.12", conda_packages=("cudatoolkit=11.8.0",), docker=("2.12.1", "cuda-11.8-system"), docker_image=CU118_IMG),
        torch("gtx1650-r535-torch-cpu-flag", ("GeForce GTX 1650",), "535.104.05", "2.15.0", "cpu", cpu=True, extra={"index": "cpu"}),
        # Ampere
        tf("a100-r470-tf", ("A100",), "470.82.01", "2.14.1", "and-cuda", ("tensorflow[and-cuda]==2.14.1",), want_python="3.10",
           says=("tensorflow 2.21.0 needs CUDA 12.9: driver >= 525.60.13",)),
        tf("a100-r515-tf", ("A100",), "515.65.01", "2.14.1", "and-cuda", ("tensorflow[and-cuda]==2.14.1",), want_python="3.10"),
        tf("a100-r470-tf-py311", ("A100",), "470.82.01", "2.13.1", "cuda-11.8-conda", ("tensorflow==2.13.1", "nvidia-cudnn-cu11==8.6.0.163"),
           python="3.11", want_python="3.11", conda_packages=("cudatoolkit=11.8.0",), docker=("2.13.1", "cuda-11.8-system"), docker_image=CU118_IMG,
           says=("tensorflow 2.14.1 has no wheel for Python 3.11", "tensorrt==8.5.3.1")),
        tf("a100-r535-tf-2.10", ("A100",), "535.104.05", "2.10.1", "cuda-11.2-conda", ("tensorflow==2.10.1",), pin="2.10",
           conda_packages=("cudatoolkit=11.2", "cudnn=8.1.0"), docker=("2.10.1", "cuda-11.2-system"), docker_image=CU112_IMG),
        tf("rtx3090-r525-tf-2.13", ("RTX 3090",), "525.60.13", "2.13.1", "cuda-11.8-conda", ("tensorflow==2.13.1", "nvidia-cudnn-cu11==8.6.0.163"),
           pin="2.13", conda_packages=("cudatoolkit=11.8.0",), docker=("2.13.1", "cuda-11.8-system"), docker_image=CU118_IMG),
        torch("a10-r550-branch-torch", ("A10",), "550", "2.14.1", "cu126", says=("driver R550 supports CUDA 12.4",)),
        torch("rtxa6000-r525-torch", ("RTX A6000",), "525.60.13", "2.14.1", "cu126"),
        torch("a100-r580-torch", ("A100",), "580.65.06", "2.15.0", "cu132", packages=("torch==2.15.0",)),
        # Ada
        tf("rtx4090-r550-tf", ("RTX 4090",), "550.54.15", "2.21.0", "and-cuda", ("tensorflow[and-cuda]==2.21.0",),
           says=("pip installs CUDA 12.9 and the newest cuDNN 9.x", "the full feature set needs driver >= 575.51.03")),
        tf("l4-r560-tf", ("L4",), "560.35.03", "2.21.0", "and-cuda", ("tensorflow[and-cuda]==2.21.0",),
           says=("minor-version compatibility", "driver >= 575.51.03")),
        torch("2xl40s-r535-torch", ("L40S", "L40S"), "535.104.05", "2.14.1", "cu126"),
        torch("rtx4090-nodriver-torch", ("RTX 4090",), None, "2.15.0", "cu132", packages=("torch==2.15.0",), says=("no NVIDIA driver known",)),
        # Hopper
        tf("h200-r570-tf", ("H200",), "570.124.04", "2.21.0", "and-cuda", ("tensorflow[and-cuda]==2.21.0",)),
        torch("h100-r535-torch", ("H100",), "535.104.05", "2.14.1", "cu126"),
        # Blackwell
        torch("b200-r580-torch", ("B200",), "580.65.06", "2.15.0", "cu132", packages=("torch==2.15.0",)),
        torch("rtx5090-r580-torch", ("GeForce RTX 5090",), "580.65.06", "2.15.0", "cu132", packages=("torch==2.15.0",)),
        tf("b200-r580-tf", ("B200",), "580.65.06", "2.21.0", "and-cuda", ("tensorflow[and-cuda]==2.21.0",), says=("PTX",)),
        # aarch64 servers: the package index's aarch64 wheels are CUDA 13 builds from torch 2.11
        torch("gh200-r580-torch", ("GH200",), "580.65.06", "2.15.0", "cu132", packages=("torch==2.15.0",), extra={"index": None},
              says=("Linux aarch64: the package index's torch 2.15.0 wheel is the cu132 build",)),
        torch("gb200-r580-torch", ("GB200",), "580.65.06", "2.15.0", "cu132", packages=("torch==2.15.0",), extra={"index": None}),
        torch("gh200-r580-torch-py310", ("GH200",), "580.65.06", "2.14.1", "cu130", python="3.10", want_python="3.10", extra={"index": None}),
        torch("h100-aarch64-r580-torch", ("H100",), "580.65.06", "2.15.0", "cu132", arch="aarch64", packages=("torch==2.15.0",), extra={"index": None}),
        torch("aarch64-cpu-torch", (), None, "2.15.0", "cpu", arch="aarch64", packages=("torch==2.15.0",), extra={"index": "cpu"}),
        tf("aarch64-cpu-tf", (), None, "2.21.0", "cpu", ("tensorflow==2.21.0",), arch="aarch64"),
        # Windows / WSL
        torch("win-gtx1080-torch", ("GeForce GTX 1080",), "537.58", "2.14.1", "cu126", os="windows", docker=("2.14.1", "cu126")),
        tf("win-v100-tf", ("Tesla V100",), "537.58", "2.10.1", "cuda-11.2-conda", ("tensorflow==2.10.1",), os="windows",
           conda_packages=("cudatoolkit=11.2", "cudnn=8.1.0"), docker=("2.21.0", "and-cuda"), says=("a plain venv finds conda's CUDA DLLs only",)),
        torch("wsl-a100-torch", ("A100",), "551.86", "2.14.1", "cu126", os="wsl"),
        tf("wsl-t4-tf-2.14", ("Tesla T4",), "551.86", "2.14.1", "and-cuda", ("tensorflow[and-cuda]==2.14.1",), os="wsl", pin="2.14", want_python="3.10"),
        torch("win-cpu-torch", (), None, "2.15.0", "cpu", os="windows", packages=("torch==2.15.0",), extra={"index": "cpu"}),
        # macOS: arm64 by default; Intel Macs stop at torch 2.2 and tensorflow 2.16
        tf("mac-arm64-tf", (), None, "2.21.0", "cpu", ("tensorflow==2.21.0",), os="darwin", says=("macOS arm64",), docker=("2.21.0", "cpu")),
        torch("mac-x86-torch", (), None, "2.2.2", "cpu", os="darwin", arch="x86_64", packages=("torch==2.2.2", "torchvision==0.17.2"),
              extra={"index": None}, docker=("2.15.0", "cpu"), says=("Intel Macs stop at torch 2.2",)),
        tf("mac-x86-tf", (), None, "2.16.2", "cpu", ("tensorflow==2.16.2",), os="darwin", arch="x86_64", docker=("2.21.0", "cpu"),
           says=("Intel Macs stop at tensorflow 2.16",)),
        # CPU-only, pinned old releases
        tf("cpu-tf-py310", (), None, "2.21.0", "cpu", ("tensorflow==2.21.0",), python="3.10", want_python="3.10"),
        torch("cpu-torch-1.12", (), None, "1.12.1", "cpu", pin="1.12", packages=("torch==1.12.1", "torchvision==0.13.1"), extra={"index": "cpu"}),
    ]
