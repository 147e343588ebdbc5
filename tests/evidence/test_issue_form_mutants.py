"""The issue-form reader's choice of which "Label: answer" lines to read (gpudoctor/evidence/readers/issue_form.py
`read`), pinned line by line for mutation testing: a template (a distinctive label, or a bulleted or bold field) reads
every field, bare lines included; outside one, only adjacent "Label: version" lines of version facts are a typed list."""

from __future__ import annotations

from gpudoctor.evidence import read_evidence
from gpudoctor.model import CudaToolkit, Driver


def test_both_lines_of_a_two_line_list_are_read():
    facts = read_evidence("tensorflow version: 1.5.0\nCUDA: 9.0\n")
    assert facts.frameworks.tensorflow.version == "1.5.0" and facts.cuda_toolkits == (CudaToolkit(version="9.0"),)
    facts = read_evidence("CUDA: 9.0\nDriver Version: 384.69\n")  # the last line counts as much as the first
    assert facts.cuda_toolkits == (CudaToolkit(version="9.0"),) and facts.driver == Driver(version="384.69")


def test_a_dotted_answer_of_another_label_does_not_make_a_list():
    for text in ("OS: Ubuntu 18.04\nCUDA: 9.0\n", "CUDA: 9.0\nOS: Ubuntu 18.04\n"):
        facts = read_evidence(text)
        assert facts.host is None and facts.cuda_toolkits is None, text
    # a version fact without a version in its answer is no line of the list either
    facts = read_evidence("CUDA: yes\nDriver Version: 384.69\n")
    assert facts.cuda_toolkits is None and facts.driver is None


def test_a_template_s_distinctive_label_reads_its_bare_lines():
    facts = read_evidence("OS Platform and Distribution: Linux Ubuntu 16.04\nGPU model and memory: GTX 1080 8GB\n"
                          "Python version: 3.6.9\n")
    assert (facts.host.os, facts.host.python) == ("linux", "3.6.9") and [g.name for g in facts.gpus] == ["GTX 1080"]


def test_one_bulleted_field_makes_the_bare_lines_beside_it_fields_too():
    facts = read_evidence("- Python version: 3.6.9\nOS: Windows 10\nGPU: GTX 1080\n")
    assert (facts.host.os, facts.host.python) == ("windows", "3.6.9") and [g.name for g in facts.gpus] == ["GTX 1080"]
    bare = read_evidence("Python version: 3.6.9\nOS: Windows 10\nGPU: GTX 1080\n")  # no field shaped like a form's
    assert bare.host is None and bare.gpus is None
