"""One reader per format. Each is a module with ``NAME`` and ``read(document) -> Iterator[Observation]`` that
scans the whole document for its own format and says nothing about anything else."""

from . import amd, collect_env, kernel_log, framework_info, issue_form, nvcc, nvidia_smi, nvidia_smi_query, one_liners, packages, error_lines, sentences, system, wheel_names

READERS = (collect_env, amd, kernel_log, nvidia_smi, nvidia_smi_query, nvcc, packages, framework_info, system, error_lines, one_liners, wheel_names, issue_form, sentences)
