"""Short structured outputs people paste: `python --version`, `pip --version`, `uname -a`, environment assignments
(`export CUDA_VISIBLE_DEVICES=1`), a WSL kernel name, `wsl -l -v`, and jax.print_environment_info()'s version lines.
Each is a value a tool printed; what error lines mean lives in matrices/signatures.toml, not here."""

from __future__ import annotations

import re
from typing import Iterator

from ..document import Document
from ..observation import Observation

NAME = "one-liner"


def _python_version(m, n, line):
    yield Observation("host.python", m.group(1), n, NAME, "python --version")


def _python_banner(m, n, line):
    # the interpreter's banner: "Python 3.7.7 (tags/v3.7.7:d7c567b08f, Mar 10 2020, 10:41:24) [MSC v.1900 64 bit
    # (AMD64)] on win32"; MSC builds are Windows', and "on linux" / "on darwin" name the platform where printed
    yield Observation("host.python", m.group(1), n, NAME, "the Python interpreter's banner")
    platform = {"win32": "windows", "linux": "linux", "darwin": "darwin"}.get(m.group(3) or "")
    if platform or m.group(2):
        yield Observation("host.os", platform or "windows", n, NAME, "the Python banner: built with MSC (Windows)" if not platform
                          else f"the Python banner: on {m.group(3)}")


def _pip_python(m, n, line):
    yield Observation("host.python", m.group(1), n, NAME, "the Python pip runs under")


def _env_var(m, n, line):
    name, value = m.group(2), m.group(3).strip().strip("'\"")
    if m.group(1) and "export" not in m.group(1):
        # "$ HSA_OVERRIDE_GFX_VERSION=10.3.0" typed at a prompt, not exported: programs started later never see it
        # (a bare "NAME=value" line is `env` output, which lists exported variables only)
        yield Observation("symptoms[]", {"kind": "variable-not-exported", "text": line.strip()[:300], "subject": name}, n, NAME)
        return
    yield Observation(f"host.env.{name}", value, n, NAME)


def _env_prefix(m, n, line):
    # "CUDA_VISIBLE_DEVICES=1 python train.py": the assignment reaches that command's environment
    yield Observation(f"host.env.{m.group(1)}", m.group(2).strip("'\""), n, NAME, "set for the command on the same line")


def _wsl_kernel(m, n, line):
    kernel = m.group(1)
    if kernel.endswith("-Microsoft"):
        yield Observation("host.wsl", 1, n, NAME, f"kernel {kernel} is a WSL 1 kernel")
    else:
        yield Observation("host.wsl", 2, n, NAME, f"kernel {kernel} is a WSL 2 kernel")
    yield Observation("host.os", "linux", n, NAME)


def _wsl_list(m, n, line):
    # `wsl -l -v`: "* Ubuntu    Running    1"; the starred row is the default distribution
    yield Observation("host.wsl", int(m.group(2)), n, NAME, f"`wsl -l -v` lists the default distribution {m.group(1)} as WSL {m.group(2)}")
    yield Observation("host.os", "linux", n, NAME, "a WSL distribution runs Linux")


def _uname(m, n, line):
    kernel = m.group(1)
    yield Observation("host.kernel", kernel, n, NAME, "uname -a")
    yield Observation("host.os", "linux", n, NAME, "uname -a")
    if "microsoft-standard" in kernel.lower():
        yield Observation("host.wsl", 2, n, NAME, "a microsoft-standard kernel is WSL 2's")
    elif kernel.endswith("-Microsoft"):
        yield Observation("host.wsl", 1, n, NAME, "a kernel named '-Microsoft' is WSL 1's")


def _darwin_uname(m, n, line):
    # `uname -a` on a Mac: the kernel's own architecture (RELEASE_ARM64_T6000) and, last, the shell's (x86_64 under
    # Rosetta: an x86_64 shell and the Python it starts are translated on Apple silicon)
    kernel_arm, process = m.group(1) == "ARM64", m.group(2)
    yield Observation("host.os", "darwin", n, NAME, "uname -a")
    yield Observation("host.apple.python_arch", process, n, NAME, "uname -a: the architecture of the shell that ran it")
    if kernel_arm:
        yield Observation("host.apple.rosetta", process == "x86_64", n, NAME,
                          "uname -a: an Apple-silicon kernel (RELEASE_ARM64) running an x86_64 shell is Rosetta")


def _macho_file(m, n, line):
    # `file $(which python)` on a Mac: the interpreter's own architecture (x86_64 on Apple silicon is Rosetta's)
    yield Observation("host.os", "darwin", n, NAME, "file: a Mach-O executable")
    yield Observation("host.apple.python_arch", m.group(1), n, NAME, "file $(which python): the interpreter's architecture")


def _apple_chip(m, n, line):
    # the chip's name as macOS prints it (`sysctl -n machdep.cpu.brand_string`, About This Mac's "Chip"): Apple silicon
    yield Observation("host.os", "darwin", n, NAME, f"{m.group(1)} is an Apple-silicon Mac's chip")
    yield Observation("host.arch", "arm64", n, NAME, f"{m.group(1)} is an Apple-silicon Mac's chip")


def _users_path(m, n, line):
    # Python's packages under /Users/<name>/: macOS keeps home directories there (Linux in /home, Windows in C:\\Users)
    yield Observation("host.os", "darwin", n, NAME, "a package path under /Users/<name>/ is a Mac's")


def _framework_path(m, n, line):
    # a traceback frame inside an installed framework: that framework is installed there (and it is the one running)
    framework = "torch" if m.group(2) == "torch" else "tensorflow"
    yield Observation(f"frameworks.{framework}.path", m.group(1), n, NAME, "a traceback runs code from there")


def _jax_print_env(m, n, line):
    # jax.print_environment_info(): "jax:    0.4.26" / "jaxlib: 0.4.26" at the start of a line
    name, version = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    if name == "python":
        yield Observation("host.python", version, n, NAME, "jax.print_environment_info()")
        return
    yield Observation(f"python_packages.{name}", version, n, NAME, "jax.print_environment_info()")
    yield Observation(f"frameworks.jax.{'version' if name == 'jax' else 'jaxlib'}", version, n, NAME, "jax.print_environment_info()")


def _notebook_path(m, n, line):
    # /content/ is Colab's working directory and /kaggle/working Kaggle's: a path there was printed in that runtime
    kind = "kaggle" if m.group(1) == "kaggle" else "colab"
    yield Observation("host.notebook.kind", kind, n, NAME, f"a path under /{m.group(1)}/, which a {kind} runtime has")


def _colab_module(m, n, line):
    yield Observation("host.notebook.kind", "colab", n, NAME, "the google.colab module, which only Colab has")


def _conda_torch_request(m, n, line):
    # "conda install pytorch==1.9.0 torchvision cudatoolkit=11.3 -c pytorch": the pair the solver is asked for; where
    # no CUDA build of that torch exists for that cudatoolkit, conda satisfies both with the CPU build beside it
    yield Observation("symptoms[]", {"kind": "conda-torch-cuda-request", "text": line.strip()[:300],
                                     "subject": f"{m.group(1)}|{m.group(2)}"}, n, NAME)


_COMPARED = re.compile(r"(?i)\bwork|\blocal|\bunlike\b|\bwhereas\b|\bfine\b")


def _notebook_said(m, n, line):
    if _COMPARED.search(line):
        return  # "it works on Colab but not on my machine": the machine in trouble is another one
    kind = "kaggle" if m.group(1).lower() == "kaggle" else "colab"  # "collab": a spelling reporters use
    yield Observation("host.notebook.kind", kind, n, NAME, "stated in the reporter's words", stated=True)


_PATTERNS = tuple((re.compile(p), h, k) for p, h, k in (
    (r"(?:Using )?pip \d+(?:\.\d+)* from \S+ \(python (\d+\.\d+)\)", _pip_python, ('pip ',)),
    (r"^\s*Python (\d+\.\d+\.\d+)\s*$", _python_version, ('Python ',)),
    (r"^\s*(?:>>>\s*)?Python (\d+\.\d+\.\d+)\S* \((?:tags/|heads/|main|default|v\d|\w+:)[^)]*\)\s*(?:\[(?:(MSC v\.)|[^\]]*)[^\]]*\]?)?(?:\s*on (win32|linux|darwin))?", _python_banner, ('Python ',)),
    # a command in Markdown's inline code ("`export CUDA_VISIBLE_DEVICES=1`") is the same command
    (r"^\s*`?\s*(\$\s*export\s+|export\s+|\$\s*)?(CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES|LD_LIBRARY_PATH|CUDA_HOME|CUDA_PATH|CUDA_FORCE_PTX_JIT|HSA_OVERRIDE_GFX_VERSION)=([^\s`]*)`?\s*$", _env_var, ('=',)),
    (r"^\s*[`$>]?\s*(CUDA_VISIBLE_DEVICES)=(\S*)\s+(?:python\d?(?:\.\d+)?|\./|bash|sh|torchrun|accelerate|deepspeed)\S*", _env_prefix, ('=',)),
    (r"^\s*Linux \S+ (\d+\.\d+\.\d+\S*) #\d+", _uname, ('Linux ',)),
    (r"^\s*File \"((?:[^\"]*[/\\])?(?:site|dist)-packages[/\\](torch|tensorflow))[/\\][^\"]*\", line \d+", _framework_path, ('packages',)),
    # the loader opening a framework's own extension (macOS: "dlopen(.../tensorflow/python/_pywrap_tensorflow.so, 10)")
    (r"dlopen\(((?:[^,()]*[/\\])?(?:site|dist)-packages[/\\](torch|tensorflow))[/\\]", _framework_path, ('dlopen(',)),
    (r"^\s*Darwin \S+ \S+ Darwin Kernel Version .*RELEASE_(ARM64|X86_64)\S*\s+(x86_64|arm64)\s*$", _darwin_uname, ('Darwin ',)),
    (r"python[\d.]*:\s+Mach-O 64-bit executable (x86_64|arm64)\s*$", _macho_file, ('Mach-O',)),
    (r"^\s*(?:[-*]\s*)?(?:Chip|Processor|CPU|machdep\.cpu\.brand_string)?:?\s*(?:Apple|Mac(?:Book)?(?: (?:Pro|Air|mini|Studio))?) "
     r"(M[1-9](?: (?:Pro|Max|Ultra))?)\s*$", _apple_chip, ('Apple M', 'Mac')),
    (r"(?:^|[\s'\"(=])/Users/[^/\s'\"]+/\S*?(?:site|dist)-packages/", _users_path, ('/Users/',)),
    (r"\b(\d+\.\d+\.\d+-\d+-Microsoft|\d+\.\d+\.\d+(?:\.\d+)?-microsoft-standard(?:-WSL2)?)\b", _wsl_kernel, ('icrosoft',)),
    (r"^\s*\*\s+(\S+)\s+(?:Running|Stopped|Installing|Converting)\s+([12])\s*$", _wsl_list, ('Running', 'Stopped', 'Installing', 'Converting')),
    (r"^(jax|jaxlib):\s+(\d+\.\d+\.\d+[\w.+]*)\s*$|^(python): (\d+\.\d+\.\d+)(?: \(|\s*$)", _jax_print_env, ('jax', 'python: ')),
    (r"\bconda\s+(?:install|create)\b(?=.*?\bpytorch\s*==?\s*(\d+\.\d+(?:\.\d+)?)\b)(?=.*?\bcudatoolkit\s*==?\s*(\d+\.\d+)\b)",
     _conda_torch_request, ('cudatoolkit',)),
    (r"(?:^|[\s'\"(=:])/(kaggle|content)/[\w.-]", _notebook_path, ('/kaggle/', '/content/')),
    (r"\bgoogle[./\\]colab\b", _colab_module, ('google.colab', 'google/colab', 'google\\colab')),
    # "I changed the setting in Colab", "running on Google Colab", "on Kaggle": where the reporter ran it
    (r"(?i)\b(?:(?:on|in|using|via|from|with)\s+(?:the\s+|a\s+)?(?:google\s+)?|google[\s-]+)(coll?ab|kaggle)(?:oratory)?\b",
     _notebook_said, ('olab', 'OLAB', 'ollab', 'OLLAB', 'aggle', 'AGGLE')),
))
_ANY = tuple(dict.fromkeys(k for _, _, keywords in _PATTERNS for k in keywords))  # a line of none of them matches none


_MACHINE = re.compile(r"^\s*(arm64|aarch64|x86_64)\s*$")  # the line after a prompt that ran `uname -m`

# `nvidia-smi -L`: "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-...)", then its MIG devices indented below it
_SMI_GPU = re.compile(r"^GPU (\d+): (.+?) \(UUID: (GPU-[\w-]+)\)\s*$")
_SMI_MIG = re.compile(r"^\s+MIG \S+\s+Device\s+\d+: \(UUID: (MIG-[\w/-]+)\)\s*$")


def _smi_list(document: Document) -> Iterator[Observation]:
    lines = document.lines
    for number in document.lines_with("(UUID: GPU-"):  # every GPU line holds it
        m = _SMI_GPU.match(lines[number - 1])
        if not m:
            continue
        current = int(m.group(1))
        yield Observation(f"gpus[{current}].index", current, number, NAME, "nvidia-smi -L")
        yield Observation(f"gpus[{current}].name", m.group(2).strip(), number, NAME, "nvidia-smi -L")
        yield Observation(f"gpus[{current}].uuid", m.group(3), number, NAME, "nvidia-smi -L")
        # its MIG devices: the lines below it, blank lines between them, up to the first other line
        for below in range(number + 1, len(lines) + 1):
            line = lines[below - 1]
            if _SMI_GPU.match(line):
                break  # the next GPU, read by the loop above
            if (mig := _SMI_MIG.match(line)):
                yield Observation(f"gpus[{current}].mig_enabled", True, below, NAME, "nvidia-smi -L lists MIG devices")
                yield Observation(f"gpus[{current}].mig_instances[]", mig.group(1), below, NAME, "nvidia-smi -L")
            elif line.strip():
                break


def read(document: Document) -> Iterator[Observation]:
    if "(UUID: GPU-" in "\n".join(document.lines[:2000]):
        yield from _smi_list(document)
    lines = document.lines
    for number in document.lines_with("uname -m"):  # a prompt that ran `uname -m`: its answer is the next line with text
        after = next((n for n in range(number + 1, min(number + 3, len(lines)) + 1) if lines[n - 1].strip()), None)
        if lines[number - 1].rstrip().endswith("uname -m") and after and (m := _MACHINE.match(lines[after - 1])):
            yield Observation("host.arch", m.group(1), after, NAME, "uname -m")
    holding = [(pattern, handler, set(document.lines_with(*keywords))) for pattern, handler, keywords in _PATTERNS]
    for number in document.lines_with(*_ANY):
        line = lines[number - 1]
        for pattern, handler, numbers in holding:
            if number in numbers:  # the line holds one of the pattern's keywords
                m = pattern.search(line)
                if m:
                    yield from handler(m, number, line)
