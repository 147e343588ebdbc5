"""Library majors by file name, finding by finding (issue 11: mutation score of checks/cudnn_majors.py).

test_cudnn_majors.py and test_non_framework_library.py say which finding a pasted log raises; this file pins the
major each file name asks for (Linux sonames and Windows DLL names), the CUDA a CUDA library's name asks for, the
installed cuDNN majors and where each was seen, the whole cudnn-version-mismatch and loader-path findings, and the
silent cases.

Equivalent mutants: `_SONAME_MAJOR.search(name or "XXXX")` and `re.match(..., s.subject or "XXXX")` for `or ""`:
"XXXX" names no library, so it matches nothing, as "" does; `(lib.version or "XXXX").split(".")[0]` in
_installed_majors: "XXXX" is no digit string, so a library without a version is skipped, as with ""; the loader-path
pattern upper-cased (`(?:LIB)?CUDNN`): it is matched with re.I, so the case of its letters does not matter."""

from __future__ import annotations

import pytest

from gpudoctor.checks import cudnn_majors as c
from gpudoctor.model import Facts, Finding, Fix, Libraries, Library, Section, Severity, Symptom

FASTER_WHISPER = "https://github.com/SYSTRAN/faster-whisper#gpu"
CUDNN_GUIDE = "https://docs.nvidia.com/deeplearning/cudnn/latest/installation/linux.html"
OTHER_MAJOR = "a program built for one cuDNN major loads only that major's libraries: another major does not stand in"
FILE_NAME = "the number in the file name is the major the program needs: another major does not stand in"


def not_found(subject: str | None, text: str | None = None) -> Symptom:
    return Symptom("cudnn-not-found", text or f"Could not load library {subject}. Error: {subject}: cannot open shared object file",
                   None, subject)


@pytest.mark.parametrize(("name", "major"), [
    ("libcudnn_ops_infer.so.8", "8"), ("libcudnn.so.9.1.0", "9"), ("libcudnn_cnn_infer.so.8.9.2", "8"),
    ("cudnn_ops_infer64_8.dll", "8"), ("cudnn64_9.dll", "9"), ("CUDNN64_9.DLL", "9"), ("LIBCUDNN.SO.8", "8"),
    ("libcudnn.so", None), ("cudnn64.dll", None), ("", None), (None, None),
])
def test_the_major_a_file_name_asks_for(name, major):
    assert c._major(name) == major


@pytest.mark.parametrize(("name", "cuda"), [
    ("libcudart.so.11.0", "11.0"), ("libcublas.so.11", "11"), ("libcufft.so.10.1", "10.1"), ("libcurand.so.10", "10"),
    ("libcusolver.so.11", "11"), ("libcusparse.so.12", "12"), ("cudart.so.9.0", "9.0"),
    ("cudart64_110.dll", "11.0"), ("cudart64_101.dll", "10.1"), ("cudart64_90.dll", "9.0"), ("cudart64_80.dll", "8.0"),
    ("cublas64_12.dll", "12"), ("cufft64_10.dll", "10"), ("cusparse64_11.dll", "11"), ("cudart64_9.dll", "9"),
    ("libcudnn.so.8", None), ("cudnn64_8.dll", None), ("libcuda.so.1", None), ("nvcuda.dll", None),
])
def test_the_cuda_a_cuda_library_name_asks_for(name, cuda):
    assert c.soname_cuda(name) == cuda


def test_installed_majors_from_the_loader_and_the_pip_wheels_first_seen_kept():
    libs = Libraries(libcudnn=(Library("/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7", "8.9.7"), Library(None, "9.1.0"),
                               Library("/opt/cudnn/libcudnn.so.8", "8.6.0"), Library("/x/libcudnn.so", None),
                               Library("/y/libcudnn.so", "unknown")))
    packages = {"nvidia-cudnn-cu12": "9.1.0.70", "nvidia-cudnn-cu11": "7.6.5", "nvidia-cudnn-cu11-extra": "6.0",
                "nvidia-cudnn": "5.1", "nvidia-cudnn-cu10": "", "nvidia-cudnn-cu9": None, "nvidia-cudnn-cu8": "beta"}
    assert c._installed_majors(Facts(libraries=libs, python_packages=packages)) == {
        "8": "cuDNN 8.9.7 (/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7)", "9": "cuDNN 9.1.0", "7": "nvidia-cudnn-cu11 7.6.5"}
    assert list(c._installed_majors(Facts(libraries=libs, python_packages=packages))) == ["8", "9", "7"]
    assert c._installed_majors(Facts(python_packages={"nvidia-cudnn-cu12": "9.1.0.70"})) == {"9": "nvidia-cudnn-cu12 9.1.0.70"}
    assert c._installed_majors(Facts(libraries=Libraries(), python_packages={"torch": "2.4.0"})) == {}
    assert c._installed_majors(Facts()) == {}


def mismatch_fix(need: str, have: str) -> Fix:
    return Fix(f"Install cuDNN {need} beside cuDNN {have} (and put it on the loader path), or a build of the program for cuDNN {have}",
               (f"pip install 'nvidia-cudnn-cu12=={need}.*'   # then add its lib directory to LD_LIBRARY_PATH (PATH on Windows)",
                "# faster-whisper / CTranslate2: ctranslate2>=4.5 needs cuDNN 9; ctranslate2==4.4.0 runs on cuDNN 8 with CUDA 12"),
               FASTER_WHISPER)


def test_cudnn_8_asked_for_beside_cudnn_9_pinned():
    line = "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!"
    facts = Facts(symptoms=(not_found("cudnn_ops_infer64_8.dll", line),), python_packages={"nvidia-cudnn-cu12": "9.1.0.70"})
    assert list(c.cudnn_major_missing(facts, None)) == [Finding(
        "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN, "The program needs cuDNN 8, and only cuDNN 9 is installed",
        (f"log: {line}", "nvidia-cudnn-cu12 9.1.0.70", OTHER_MAJOR), mismatch_fix("8", "9"))]


def test_the_lowest_major_needed_and_installed_and_the_first_line_asking_for_it():
    asked = (not_found(None, "cuDNN not found"), not_found("libcudnn.so.9", "first 9"), not_found("libcudnn_ops_infer.so.8", "first 8"),
             not_found("libcudnn_cnn_infer.so.8", "second 8"))
    libs = Libraries(libcudnn=(Library("/usr/lib/libcudnn.so.7.6.5", "7.6.5"), Library(None, "6.0.21")))
    (f,) = c.cudnn_major_missing(Facts(symptoms=asked, libraries=libs), None)
    assert f.title == "The program needs cuDNN 8, and only cuDNN 6 is installed"
    assert f.evidence == ("log: first 8", "cuDNN 7.6.5 (/usr/lib/libcudnn.so.7.6.5)", "cuDNN 6.0.21", OTHER_MAJOR)
    assert f.fix == mismatch_fix("8", "6")


def test_silent_without_a_major_asked_for_without_an_installed_one_or_with_the_needed_one_there():
    cudnn9 = {"nvidia-cudnn-cu12": "9.1.0.70"}
    assert list(c.cudnn_major_missing(Facts(symptoms=(not_found("libcudnn.so"),), python_packages=cudnn9), None)) == []
    assert list(c.cudnn_major_missing(Facts(symptoms=(not_found(None, "cuDNN missing"),), python_packages=cudnn9), None)) == []
    assert list(c.cudnn_major_missing(Facts(symptoms=(not_found("libcudnn.so.8"),)), None)) == []
    assert list(c.cudnn_major_missing(Facts(python_packages=cudnn9), None)) == []
    both = (not_found("libcudnn.so.8"), not_found("libcudnn.so.9"))
    assert list(c.cudnn_major_missing(Facts(symptoms=both, python_packages=cudnn9), None)) == []  # 9 is there
    other_kind = Symptom("library-not-loadable", "libcudnn.so.8: cannot open shared object file", None, "libcudnn.so.8")
    assert list(c.cudnn_major_missing(Facts(symptoms=(other_kind,), python_packages=cudnn9), None)) == []


def loader_fix(what: str, wheel: str) -> Fix:
    return Fix(f"Install that {what} major and put its directory on the loader path (LD_LIBRARY_PATH; PATH on Windows)",
               (f"pip install {wheel}   # the major the file name says (cu11 for .so.11 / .so.8 cuDNN)",
                "ldconfig -p | grep -E 'libcudnn|libcublas|libcudart'   # what the loader finds"), CUDNN_GUIDE)


def test_cudnn_and_cuda_libraries_off_the_loader_path_pinned():
    found = [Symptom("library-not-loadable", "a", None, "libcudnn.so.9"), Symptom("library-not-loadable", "b", None, "libcudart.so.12"),
             Symptom("library-not-loadable", "c", None, "CUDNN64_8.DLL"), Symptom("library-not-loadable", "d", None, "libcudnn.so.9"),
             Symptom("library-not-loadable", "e", None, None), Symptom("library-not-loadable", "f", None, "libcublas.so.12")]
    assert list(c.not_on_loader_path(found, Severity.WARNING, ("log: a",))) == [
        Finding("cudnn-not-on-loader-path", Severity.WARNING, Section.CUDNN,
                "A program cannot load the cuDNN library it was built for (libcudnn.so.9, CUDNN64_8.DLL): "
                "it is not installed or not on the loader path", ("log: a", FILE_NAME), loader_fix("cuDNN", "nvidia-cudnn-cu12")),
        Finding("cuda-library-not-on-loader-path", Severity.WARNING, Section.CUDA,
                "A program cannot load the CUDA library it was built for (libcudart.so.12, libcublas.so.12): "
                "it is not installed or not on the loader path", ("log: a", FILE_NAME),
                loader_fix("CUDA", "nvidia-cublas-cu12 nvidia-cuda-runtime-cu12"))]


def test_only_the_group_that_failed_and_nothing_without_a_gpu_verdict():
    cudart = [Symptom("library-not-loadable", "x", None, "cudart64_110.dll")]
    (f,) = c.not_on_loader_path(cudart, Severity.ERROR, ())
    assert (f.id, f.severity, f.section) == ("cuda-library-not-on-loader-path", Severity.ERROR, Section.CUDA)
    assert f.evidence == (FILE_NAME,)
    (f,) = c.not_on_loader_path([Symptom("library-not-loadable", "y", None, "cudnn_ops_infer64_8.dll")], Severity.ERROR, ())
    assert (f.id, f.section) == ("cudnn-not-on-loader-path", Section.CUDNN)
    assert list(c.not_on_loader_path(cudart, None, ())) == []
    assert list(c.not_on_loader_path([], Severity.ERROR, ())) == []
