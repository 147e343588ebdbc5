"""One reader per format. Each is a module with ``NAME`` and ``read(document) -> Iterator[Observation]`` that
scans the whole document for its own format and says nothing about anything else."""

from . import amd, collect_env, kernel_log, framework_info, issue_form, messages, nvcc, nvidia_smi, nvidia_smi_query, packages, system

READERS = (collect_env, amd, kernel_log, nvidia_smi, nvidia_smi_query, nvcc, packages, framework_info, system, messages, issue_form)
