"""JAX's platform gap, finding by finding (issue 11: mutation score of checks/jax_platform.py).

test_jax_platform.py says which pastes raise jax-windows-native-gpu-unsupported; this file pins which pip refusals
are the gap (a +cuda jaxlib, only plain versions offered), the whole finding on Windows and elsewhere, and the
machines where JAX's CPU fallback is not that gap.

Equivalent mutants: `(s.subject or "XXXX").partition("|")` for `or ""`: "XXXX" starts with no "jaxlib==", as "" does;
`.rpartition("|")` for `.partition("|")`: the subject is "requirement|versions" (matrices/signatures.toml,
pip-offered-versions), where the requirement cannot hold a "|" and pip's version list holds none, so the first "|" is
the last; without one, both leave no "jaxlib==" requirement; _platform's `.get(host.os or "XXXX")` for `or ""`: neither
is a key of the OS table, so an unknown OS is no platform either way; `nvidia_gpu_support(platform) if (platform) or True`:
with no platform it asks the table for None, which jax.toml's [nvidia_gpu_platforms] (keyed by platform names) never
holds, so support is None as without asking."""

from __future__ import annotations

import dataclasses

from gpudoctor.checks import jax_platform as p
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Facts, Finding, Fix, Frameworks, Gpu, Host, JaxBuild, Section, Severity, Symptom

ONLY_LINUX = "JAX publishes CUDA jaxlib wheels for Linux only; on Windows, JAX's GPU support is through WSL2"
FIX = Fix("Run JAX with CUDA in WSL2 (Ubuntu) on this machine, or on Linux; the Windows driver serves WSL2",
          ("wsl --install -d Ubuntu   # from PowerShell, then inside WSL:", 'pip install -U "jax[cuda12]"'),
          "https://docs.jax.dev/en/latest/installation.html#supported-platforms")
FELL_BACK = Symptom("jax-no-accelerator", "No GPU/TPU found, falling back to CPU.", "jax")
GPU = (Gpu(index=0, name="NVIDIA GeForce RTX 3060"),)
JAX = Frameworks(jax=JaxBuild(version="0.4.30", jaxlib="0.4.30", build="cpu"))


def offered(wanted: str, versions: str, text: str = "pip: no matching distribution") -> Symptom:
    return Symptom("pip-offered-versions", text, None, f"{wanted}|{versions}")


MATRIX = load_matrix()


def run(facts: Facts, matrix=MATRIX) -> list[Finding]:
    return list(p.jax_windows_native_gpu_unsupported(facts, matrix))


def test_which_refusals_are_a_cuda_jaxlib_offered_only_as_cpu_versions():
    refused = offered("jaxlib==0.4.9+cuda12.cudnn88", "0.4.13, 0.4.14, 0.4.16")
    others = [offered("jaxlib==0.4.9+cuda12.cudnn88", " none "), offered("jaxlib==0.4.9+cuda12.cudnn88", "  "),
              offered("jaxlib==0.4.9+cuda12.cudnn88", "0.4.13, 0.4.14+cuda11.cudnn86"), offered("jaxlib==0.4.9", "0.4.13"),
              offered("jax==0.4.9+cuda12", "0.4.13"), offered("torch==2.1.0+cu121", "2.1.0, 2.2.0"),
              Symptom("pip-offered-versions", "x", None, None), Symptom("pip-not-found", "y", None, "jaxlib==0.4.9+cuda12|0.4.13")]
    assert p._cuda_jaxlib_not_offered(Facts(symptoms=(*others, refused, refused))) == [refused, refused]
    assert p._cuda_jaxlib_not_offered(Facts(symptoms=tuple(others))) == []


NOT_KNOWN = ("the platform is not known here: on Linux, a +cuda jaxlib comes only from JAX's own index "
             "(pip's -f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html) and only for the Pythons "
             "that release supports")


def test_a_refused_cuda_jaxlib_off_windows_is_this_platforms_gap_pinned():
    first = offered("jaxlib==0.4.9+cuda12.cudnn88", "0.4.13, 0.4.14", "ERROR: Could not find a version ... jaxlib==0.4.9+cuda12.cudnn88")
    second = offered("jaxlib==0.4.7+cuda11.cudnn86", "0.4.13", "second")
    expected = [Finding("jax-windows-native-gpu-unsupported", Severity.ERROR, Section.JAX,
                        "JAX has no CUDA build for this platform: only the CPU jaxlib installs here",
                        (f"log: {first.text}", ONLY_LINUX), FIX)]
    assert run(Facts(host=Host(os="darwin"), symptoms=(first,))) == expected  # macOS: no CUDA jaxlib at all
    # the platform unknown: pip's list alone does not prove the gap, a warning
    unknown = [dataclasses.replace(expected[0], severity=Severity.WARNING, evidence=expected[0].evidence + (NOT_KNOWN,))]
    assert run(Facts(symptoms=(first, second))) == unknown
    # on Linux and WSL2 (JAX's table: yes / experimental) a refused +cuda jaxlib is no platform gap
    assert run(Facts(host=Host(os="windows", wsl=2), symptoms=(first,), gpus=GPU)) == []
    assert run(Facts(host=Host(os="linux"), symptoms=(first,), gpus=GPU)) == []
    assert run(Facts(symptoms=(first,)), None) == []  # without the matrix's platform table nothing is judged


def test_jax_on_native_windows_beside_a_gpu_pinned():
    facts = Facts(host=Host(os="windows", os_release="10.0.22631"), gpus=GPU, frameworks=JAX)
    assert run(facts) == [Finding("jax-windows-native-gpu-unsupported", Severity.ERROR, Section.JAX,
                                  "JAX has no CUDA build for native Windows: only the CPU jaxlib installs here",
                                  ("this is native Windows (10.0.22631)", ONLY_LINUX), FIX)]
    refused = offered("jaxlib==0.4.9+cuda12.cudnn88", "0.4.13", "refused")
    (f,) = run(Facts(host=Host(os="windows"), symptoms=(refused,)))
    assert f.title == "JAX has no CUDA build for native Windows: only the CPU jaxlib installs here"
    assert f.evidence == ("log: refused", "this is native Windows (windows)", ONLY_LINUX)


def test_jax_falling_back_on_native_windows_needs_no_gpu_list_nor_jax_facts():
    (f,) = run(Facts(host=Host(os="windows"), symptoms=(FELL_BACK,)))
    assert f.evidence == ("this is native Windows (windows)", ONLY_LINUX)
    (f,) = run(Facts(host=Host(os="windows"), symptoms=(FELL_BACK,), frameworks=JAX, gpus=()))  # no GPU listed
    assert f.title.startswith("JAX has no CUDA build for native Windows")


def test_silent_without_jax_or_a_gpu_on_windows_and_on_linux_or_wsl():
    assert run(Facts(host=Host(os="windows"), gpus=GPU)) == []  # no JAX at all
    assert run(Facts(host=Host(os="windows"), gpus=GPU, frameworks=Frameworks())) == []
    assert run(Facts(host=Host(os="windows"), frameworks=JAX)) == []  # whether there is a GPU is not known
    assert run(Facts(host=Host(os="windows"), frameworks=JAX, gpus=(), pci_devices=())) == []  # no GPU
    assert run(Facts(host=Host(os="windows", wsl=2), gpus=GPU, frameworks=JAX, symptoms=(FELL_BACK,))) == []
    assert run(Facts(host=Host(os="linux"), gpus=GPU, frameworks=JAX, symptoms=(FELL_BACK,))) == []
    assert run(Facts(gpus=GPU, frameworks=JAX, symptoms=(FELL_BACK,))) == []
    assert run(Facts(host=Host(os="windows"), gpus=GPU, symptoms=(Symptom("jax-cpu-fallback", "x", "jax"),))) == []


def test_the_platform_table_decides_not_the_code():
    refused = offered("jaxlib==0.4.9+cuda12.cudnn88", "0.4.13", "refused")
    windows_yes = dataclasses.replace(MATRIX, jax=dataclasses.replace(MATRIX.jax, nvidia_gpu_platforms=(("windows", "yes"),)))
    assert run(Facts(host=Host(os="windows"), symptoms=(refused,)), windows_yes) == []
    assert run(Facts(host=Host(os="windows"), gpus=GPU, frameworks=JAX), windows_yes) == []
    linux_no = dataclasses.replace(MATRIX, jax=dataclasses.replace(MATRIX.jax, nvidia_gpu_platforms=(("linux", "no"),)))
    (f,) = run(Facts(host=Host(os="linux"), symptoms=(refused,)), linux_no)
    assert f.severity == Severity.ERROR


def test_the_host_as_the_platform_table_names_it():
    assert p._platform(Facts()) is None
    assert p._platform(Facts(host=Host(os="linux", wsl=2))) == "wsl2"
    assert p._platform(Facts(host=Host(os="linux", wsl=1))) is None  # WSL 1 has no GPU: not JAX's wsl2 row
    assert [p._platform(Facts(host=Host(os=os))) for os in ("linux", "windows", "darwin", "freebsd", None)] == \
        ["linux", "windows", "macos", None, None]
