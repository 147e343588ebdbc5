"""checks/pip_index.py pinned whole (mutation testing): both rules' findings word for word, which pip lines count as a
torch request, which tag the fix names, and which lines pip_messages leaves to this rule."""

from __future__ import annotations

import pytest

from gpudoctor.checks import pip_index as p
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Driver, Facts, Finding, Fix, Host, Section, Severity, Symptom

MATRIX = load_matrix()
PREVIOUS = "https://pytorch.org/get-started/previous-versions/"


def _offered(subject: str, text: str = "L") -> Symptom:
    return Symptom("pip-offered-versions", text, None, subject)


def _index(tag: str) -> Symptom:
    return Symptom("pytorch-index", "I", None, tag)


def _run(*symptoms: Symptom, python: str | None = None, driver: Driver | None = None, os: str | None = None):
    facts = Facts(host=Host(python=python, os=os) if python or os else None, driver=driver, symptoms=symptoms)
    return list(p.torch_index_url_wrong(facts, MATRIX))


TAG_FIX = "Use the index of a CUDA tag the release was built for, one whose CUDA the driver supports (nvidia-smi's 'CUDA Version')"


def test_a_tag_the_release_was_not_built_for():
    assert _run(_index("cu131"), _offered("torch==2.10.0|none"), python="3.12.3") == [Finding(
        "torch-index-url-wrong", Severity.ERROR, Section.TORCH,
        "PyTorch's cu131 index has no torch 2.10 build: pip was pointed at a CUDA tag PyTorch did not build that release for",
        ("log: L", "pip looked in https://download.pytorch.org/whl/cu131", "torch 2.10 was built for cu126, cu128, cu130"),
        Fix(TAG_FIX, ("pip install torch==2.10.0 --index-url https://download.pytorch.org/whl/cu128", "nvidia-smi"), PREVIOUS))]


def test_a_tag_never_published():
    (f,) = _run(_index("cu114"), _offered("torch==|none"))
    assert f.title == "PyTorch's cu114 index has no torch builds: pip was pointed at a CUDA tag PyTorch never published"
    assert f.evidence[2].startswith("PyTorch's CUDA tags: cu100, cu101, cu102, cu110, cu111, cu113, cu115,") and "cu92" not in f.evidence[2]
    assert f.fix.commands == ("pip install torch --index-url https://download.pytorch.org/whl/cu132", "nvidia-smi")


@pytest.mark.parametrize("symptoms", [
    (_index("cu128"), _offered("torch==2.10.0|none")),  # built for it: the Python or platform is the cause
    (_index("cu131"), _offered("torch==2.10.0|2.9.0")),  # pip listed versions: the index exists
    (_index("cu131"), _offered("torch==9.9.9|none")),  # a release the matrix does not know
    (_index("cu99"), _offered("torch==|none")),  # before cu100 the matrix does not list every tag
    (_index("rocm6.0"), _offered("torch==2.10.0|none")),
    (_index("nightly/cu131"), _offered("torch==|none")),  # nightly indexes change daily
    (_index("cu131"), _offered("torchvision==0.25.0|none")),
])
def test_no_tag_blame(symptoms):
    assert _run(*symptoms) == []


def test_the_fix_names_the_newest_tag_of_the_drivers_major_else_the_default():
    found = _run(_index("cu131"), _offered("torch==2.10.0|none"), driver=Driver(cuda_version="12.4"))
    assert found[0].fix.commands[0].endswith("/whl/cu128")
    found = _run(_index("cu131"), _offered("torch==2.10.0|none"), driver=Driver(cuda_version="11.8"))
    assert found[0].fix.commands[0].endswith("/whl/cu128")  # no cu11 build of 2.10: its default
    found = _run(_index("cu131"), _offered("torch==2.10.0|none"), driver=Driver(cuda_version="13.0"))
    assert found[0].fix.commands[0].endswith("/whl/cu130")
    # torch 2.8 (cu126, cu128, cu129; default cu128) on a CUDA 12.4 driver: the newest of the major, not the default
    found = _run(_index("cu131"), _offered("torch==2.8.0|none"), driver=Driver(cuda_version="12.4"))
    assert found[0].fix.commands[0].endswith("/whl/cu129")
    # torch 1.7 (cu92, cu101, cu102, cu110) on a CUDA 10.2 driver: cu102 by number (cu92 sorts after it as text)
    found = _run(_index("cu131"), _offered("torch==1.7.1|none"), driver=Driver(cuda_version="10.2"))
    assert found[0].fix.commands[0].endswith("/whl/cu102")
    # cu100 is a tag PyTorch published, but not for torch 2.10
    assert _run(_index("cu100"), _offered("torch==2.10.0|none"))[0].title.startswith("PyTorch's cu100 index has no torch 2.10 build")


def test_a_local_version_asked_of_pypi():
    wanted = Symptom("no-matching-distribution", "L", None, "torch==2.2.2+cu121")
    assert _run(wanted, python="3.10.12") == [Finding(
        "torch-index-url-wrong", Severity.ERROR, Section.TORCH,
        "torch 2.2.2+cu121 is a build only PyTorch's own index has: pip looked for it on PyPI, which hosts no '+cu121' versions",
        ("log: L", "no download.pytorch.org index URL in the paste; PyPI refuses local versions ('+cu121') on upload",
         "PyTorch publishes torch 2.2.2+cu121 at https://download.pytorch.org/whl/cu121"),
        Fix("Point pip at PyTorch's index for that tag (in a requirements file: an --extra-index-url line at its top)",
            ("pip install torch==2.2.2+cu121 --index-url https://download.pytorch.org/whl/cu121",
             "--extra-index-url https://download.pytorch.org/whl/cu121   # first line of requirements.txt"), PREVIOUS))]
    assert _run(wanted, python="3.13.1")[0].severity is Severity.WARNING  # torch 2.2 has no Python 3.13 wheel: shared blame
    assert _run(wanted)[0].severity is Severity.WARNING
    assert _run(wanted, os="darwin") == []  # no index has a CUDA build for macOS
    assert _run(Symptom("no-matching-distribution", "L", None, "torch==2.2.2+cpu"), os="darwin")[0].title.startswith("torch 2.2.2+cpu")
    assert _run(wanted, _index("find-links")) == []
    assert _run(_offered("torch==2.2.2+cu121|2.2.1+cu121, 2.2.2+cu118")) == []  # pip's list shows PyTorch's index
    assert _run(Symptom("no-matching-distribution", "L", None, "torch>=2.2.2+cu121")) == []  # not a pin


def test_one_finding_for_several_requests_and_what_pip_messages_leaves_alone():
    first, second = _offered("torch==2.10.0|none", "A"), _offered("torch==2.10.0|none", "B")
    facts = Facts(host=Host(python="3.12.3"), symptoms=(_index("cu131"), first, second))
    assert [f.evidence[0] for f in p.torch_index_url_wrong(facts, MATRIX)] == ["log: A"]
    assert p.judged_requests(facts, MATRIX) == {"A"}
    unsure = Facts(symptoms=(Symptom("no-matching-distribution", "W", None, "torch==2.2.2+cu121"),))
    assert p.judged_requests(unsure, MATRIX) == set()  # a warning: the Python's rule speaks too
    assert list(p.torch_index_url_wrong(Facts(symptoms=(first,)), None)) == []
    local = Symptom("no-matching-distribution", "W", None, "torch==2.2.2+cu121")
    assert [f.severity for f in p.torch_index_url_wrong(Facts(symptoms=(local,)), None)] == [Severity.WARNING]  # no matrix
    assert list(p.torch_index_url_wrong(Facts(), MATRIX)) == []


def test_torch_requests_reads_only_torch_pins_and_bare_requests():
    symptoms = (_offered("torch==2.1.0|none", "a"), _offered("torch==|none", "b"), _offered("torchaudio==2.1.0|none", "c"),
                Symptom("no-matching-distribution", "d", None, "torch"), Symptom("no-matching-distribution", "e", None, "torch~=2.1"))
    requests = p.torch_requests(Facts(symptoms=symptoms))
    assert [(r.symptom.text, r.version, r.offered) for r in requests] == [("a", "2.1.0", "none"), ("b", "", "none"), ("d", "", None)]


# -- an index whose list lacks the release (invoke-ai/InvokeAI#7146) --------------------------------------------------

from gpudoctor.checks.pip_index import TorchRequest, _index_lacks_release  # noqa: E402

ROCM56_LINE = ("ERROR: Could not find a version that satisfies the requirement torch==2.4.1 (from versions: 2.2.0+rocm5.6, "
               "2.2.1+rocm5.6, 2.2.2+rocm5.6)")


def _request(version: str, offered: str | None, line: str = ROCM56_LINE) -> TorchRequest:
    return TorchRequest(Symptom("pip-offered-versions", line, None, f"torch=={version}|{offered}"), version, offered)


def test_an_index_that_lacks_the_release_pinned():
    from gpudoctor.model import Facts

    f = _index_lacks_release(Facts(), MATRIX, _request("2.4.1", "2.2.0+rocm5.6, 2.2.1+rocm5.6, 2.2.2+rocm5.6"), ["rocm5.6"])
    assert f == Finding(
        "torch-index-url-wrong", Severity.ERROR, Section.TORCH,
        "PyTorch's rocm5.6 index has no torch 2.4.1: pip's list is that index's (2.2.0+rocm5.6 to 2.2.2+rocm5.6), not a Python limit",
        (f"log: {ROCM56_LINE}", "every version pip offers carries the local tag +rocm5.6: only PyTorch's own index for that tag lists them",
         "torch 2.4 was built for cu118, cu121, cu124, rocm6.1"),
        Fix("Use the index of a tag torch 2.4.1 was built for",
            ("pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/rocm6.1",), "https://pytorch.org/get-started/previous-versions/"))


def test_a_cuda_index_that_lacks_the_release_points_at_the_release_s_default_tag():
    from gpudoctor.model import Facts

    f = _index_lacks_release(Facts(), MATRIX, _request("2.4.1+cu117", "2.0.0+cu117, 2.0.1+cu117"), ["cu117"])
    assert f.title.startswith("PyTorch's cu117 index has no torch 2.4.1:")
    assert f.fix.commands == ("pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/cu121",)


@pytest.mark.parametrize("version, offered, indexes", [
    ("2.4.1", "2.2.0+rocm5.6, 2.2.1+rocm5.6", []),                 # no index given: a find-links list says the Python
    ("2.4.1", "2.2.0+rocm5.6, 2.2.1+cu118", ["rocm5.6"]),         # two tags
    ("2.4.1", "2.2.0, 2.2.1+rocm5.6", ["rocm5.6"]),               # a plain version among them: PyPI's list too
    ("2.4.1", None, ["rocm5.6"]),                                 # no list
    ("2.4.1", "2.4.1+rocm5.6", ["rocm5.6"]),                       # the release is offered
    ("9.9.9", "2.2.0+rocm5.6", ["rocm5.6"]),                       # a release the matrix does not know
    ("2.4.1", "2.4.0+rocm6.1", ["rocm6.1"]),                       # built for that tag: the Python's limit
    ("", "2.2.0+rocm5.6", ["rocm5.6"]),                            # no version asked
])
def test_no_index_lacks_the_release(version, offered, indexes):
    from gpudoctor.model import Facts

    assert _index_lacks_release(Facts(), MATRIX, _request(version, offered), indexes) is None
    assert _index_lacks_release(Facts(), None, _request("2.4.1", "2.2.0+rocm5.6"), ["rocm5.6"]) is None


def test_two_tags_in_pip_s_list_even_both_given_as_indexes_name_no_one_index():
    from gpudoctor.model import Facts

    request = _request("2.4.1", "2.2.0+rocm5.6, 2.2.1+cu118")
    assert _index_lacks_release(Facts(), MATRIX, request, ["rocm5.6", "cu118"]) is None


def test_a_release_without_a_rocm_build_lists_only_its_cuda_tags():
    from gpudoctor.model import Facts

    f = _index_lacks_release(Facts(), MATRIX, _request("1.7.1", "1.6.0+cu92"), ["cu92"])
    assert f is None  # torch 1.7 was built for cu92: the list is the Python's
    g = _index_lacks_release(Facts(), MATRIX, _request("1.7.1", "1.9.0+cu111, 1.9.1+cu111"), ["cu111"])
    assert g.evidence[2] == "torch 1.7 was built for cu92, cu101, cu102, cu110"
