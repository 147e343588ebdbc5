"""Error and log lines that state facts: "The NVIDIA driver on your system is too old (found version 11040)",
"... with CUDA capability sm_120 is not compatible with the current PyTorch installation", "Loaded runtime CuDNN
library: 7.4.1 but source was compiled with: 7.6.0", "Could not load dynamic library 'libcudnn.so.8'", NumPy's ABI
message, and more. Each becomes a Symptom (the line, kept as evidence) plus the facts the line states."""

from __future__ import annotations

import re
from typing import Callable, Iterator

from ..document import Document
from ..observation import Observation
from ._common import cc_from_sm, cuda_from_code, major_minor

NAME = "error line"

Handler = Callable[[re.Match[str], int, str], Iterator[Observation]]


def _symptom(kind: str, line: str, number: int, framework: str | None = None, subject: str | None = None) -> Observation:
    item = {"kind": kind, "text": line.strip()[:300]}
    if framework:
        item["framework"] = framework
    if subject:
        item["subject"] = subject
    return Observation("symptoms[]", item, number, NAME)


def _driver_too_old(m, n, line):
    code = int(m.group(1))
    yield _symptom("driver-too-old", line, n, "torch", str(code))
    if 1000 <= code < 100000:
        yield Observation("driver.cuda_version", cuda_from_code(code), n, NAME, f"torch reports the driver's CUDA version as {code}")


def _arch_incompatible(m, n, line):
    name, sm = m.group(1).strip(), m.group(2)
    yield _symptom("arch-not-in-build", line, n, "torch", sm)
    yield Observation("gpus[0].name", name, n, NAME, "the GPU torch named in its warning (the first GPU)")
    cc = cc_from_sm(sm)
    if cc:
        yield Observation("gpus[0].compute_capability", cc, n, NAME)


def _arch_supported(m, n, line):
    arch = m.group(1).split()
    yield Observation("frameworks.torch.arch_list", arch, n, NAME)
    yield Observation("frameworks.torch.build", "cuda", n, NAME, "torch lists the CUDA capabilities it was built for")


def _arch_too_old(m, n, line):
    yield _symptom("arch-not-in-build", line, n, "torch", f"sm_{m.group(2).replace('.', '')}")
    yield Observation("gpus[0].name", m.group(1).strip(), n, NAME)
    yield Observation("gpus[0].compute_capability", m.group(2), n, NAME)


def _tf_ignoring_gpu(m, n, line):
    yield _symptom("arch-not-in-build", line, n, "tensorflow", m.group(3))
    yield Observation("gpus[0].name", m.group(1).strip(), n, NAME)
    yield Observation("gpus[0].compute_capability", m.group(2), n, NAME)


def _cudnn_loaded(m, n, line):
    yield _symptom("cudnn-loaded-mismatch", line, n, "tensorflow", f"{m.group(1)} vs {m.group(2)}")
    yield Observation("libraries.libcudnn[]", {"path": None, "version": m.group(1)}, n, NAME, "the cuDNN TensorFlow loaded")
    yield Observation("frameworks.tensorflow.cudnn", m.group(2), n, NAME)
    yield Observation("frameworks.tensorflow.is_cuda_build", True, n, NAME, "TensorFlow loaded cuDNN")


def _torch_cudnn_incompatible(m, n, line):
    def version(text: str) -> str:
        parts = re.findall(r"\d+", text)
        if len(parts) == 1:
            code = int(parts[0])
            return f"{code // 1000}.{(code % 1000) // 100}.{code % 100}"
        return ".".join(parts)

    yield _symptom("cudnn-loaded-mismatch", line, n, "torch", f"{version(m.group(2))} vs {version(m.group(1))}")
    yield Observation("frameworks.torch.cudnn", version(m.group(1)), n, NAME)
    yield Observation("libraries.libcudnn[]", {"path": None, "version": version(m.group(2))}, n, NAME, "the cuDNN torch found at run time")


def _lib_not_loadable(m, n, line):
    lib = m.group(1)
    framework = "tensorflow" if ("dso_loader" in line or "Could not load dynamic library" in line) else None
    yield _symptom("library-not-loadable", line, n, framework, lib)
    if framework == "tensorflow" and re.match(r"(lib)?(cudart|cublas|cufft|curand|cusolver|cusparse|cudnn)", lib):
        yield Observation("frameworks.tensorflow.is_cuda_build", True, n, NAME, "TensorFlow only loads CUDA libraries in a CUDA build")


def _cudnn_sublib(m, n, line):
    yield _symptom("cudnn-sublibrary-not-loadable", line, n, None, m.group(1))


def _numpy_abi(m, n, line):
    version = m.group(1) if m.lastindex else None
    yield _symptom("numpy-abi", line, n, None, version)
    if version and re.fullmatch(r"\d+\.\d+(\.\d+)?", version):
        yield Observation("python_packages.numpy", version, n, NAME, "NumPy's message names the installed version")


def _simple(kind: str, framework: str | None = None) -> Handler:
    def handler(m, n, line):
        yield _symptom(kind, line, n, framework, m.group(1) if m.lastindex else None)
    return handler


def _jax_fallback(m, n, line):
    # jax/_src/xla_bridge.py logs this when a GPU is visible but no CUDA backend is registered (no plugin installed)
    yield _symptom("jax-cpu-fallback", line, n, "jax")
    yield Observation("frameworks.jax.backend", m.group(1), n, NAME, "JAX fell back to this backend")


def _jax_print_env(m, n, line):
    # jax.print_environment_info(): "jax:    0.4.26" / "jaxlib: 0.4.26" at the start of a line
    name, version = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    if name == "python":
        yield Observation("host.python", version, n, NAME, "jax.print_environment_info()")
        return
    yield Observation(f"python_packages.{name}", version, n, NAME, "jax.print_environment_info()")
    yield Observation(f"frameworks.jax.{'version' if name == 'jax' else 'jaxlib'}", version, n, NAME, "jax.print_environment_info()")


def _not_compiled(m, n, line):
    yield _symptom("torch-not-compiled-with-cuda", line, n, "torch")
    yield Observation("frameworks.torch.build", "cpu", n, NAME, "'Torch not compiled with CUDA enabled' is raised only by a CPU-only build")


def _docker_no_runtime(m, n, line):
    yield _symptom("container-no-gpu-runtime", line, n)


def _nvcc_mismatch(m, n, line):
    yield _symptom("toolkit-mismatch", line, n, "torch", f"{m.group(1)} vs {m.group(2)}")
    yield Observation("cuda_toolkits[0].version", major_minor(m.group(1)), n, NAME, "the toolkit torch.utils.cpp_extension found")
    yield Observation("frameworks.torch.cuda", major_minor(m.group(2)), n, NAME)
    yield Observation("frameworks.torch.build", "cuda", n, NAME)


def _no_matching(m, n, line):
    yield _symptom("no-matching-distribution", line, n, None, f"{m.group(1)}{m.group(2) or ''}")


def _python_version(m, n, line):
    yield Observation("host.python", m.group(1), n, NAME, "python --version")


def _env_var(m, n, line):
    name, value = m.group(1), m.group(2).strip().strip("'\"")
    yield Observation(f"host.env.{name}", value, n, NAME)


def _wsl_kernel(m, n, line):
    kernel = m.group(1)
    if kernel.endswith("-Microsoft"):
        yield Observation("host.wsl", 1, n, NAME, f"kernel {kernel} is a WSL 1 kernel")
    else:
        yield Observation("host.wsl", 2, n, NAME, f"kernel {kernel} is a WSL 2 kernel")
    yield Observation("host.os", "linux", n, NAME)


def _tf_no_cudart(m, n, line):
    # tsl/cuda/cudart_stub.cc logs this when it cannot dlopen the CUDA runtime (TensorFlow 2.14+).
    yield _symptom("library-not-loadable", line, n, "tensorflow", "libcudart.so")
    yield Observation("frameworks.tensorflow.is_cuda_build", True, n, NAME, "only a CUDA build of TensorFlow looks for the CUDA runtime")


def _kernel_dso_mismatch(m, n, line):
    yield Observation("driver.nvml_error", "Driver/library version mismatch", n, NAME, f"kernel module {m.group(1)}, user-space library {m.group(2)}")
    yield Observation("driver.kernel_module_version", m.group(1), n, NAME)


def _pip_versions(m, n, line):
    name, wanted, offered = m.group(1), m.group(2), m.group(3).strip()
    yield _symptom("no-matching-distribution", line, n, None, f"{name}=={wanted}")
    yield _symptom("pip-offered-versions", line, n, None, f"{name}=={wanted}|{offered}")


def _pip_python(m, n, line):
    yield Observation("host.python", m.group(1), n, NAME, "the Python pip runs under")


def _uname(m, n, line):
    kernel = m.group(1)
    yield Observation("host.kernel", kernel, n, NAME, "uname -a")
    yield Observation("host.os", "linux", n, NAME, "uname -a")
    if "microsoft-standard" in kernel.lower():
        yield Observation("host.wsl", 2, n, NAME, "a microsoft-standard kernel is WSL 2's")
    elif kernel.endswith("-Microsoft"):
        yield Observation("host.wsl", 1, n, NAME, "a kernel named '-Microsoft' is WSL 1's")


# (pattern, handler, keywords): a pattern is tried only on a line holding one of its keywords (a long log is mostly other lines).
_PATTERNS: tuple[tuple[re.Pattern[str], Handler, tuple[str, ...]], ...] = tuple((re.compile(p), h, k) for p, h, k in (
    (r"NVIDIA driver on your system is too old \(found version (\d+)\)", _driver_too_old, ('too old',)),
    (r"CUDA driver version is insufficient for CUDA runtime version|Insufficient CUDA driver", _simple("driver-insufficient"), ('nsufficient',)),
    (r"Could not find cuda drivers on your machine, GPU will not be used", _tf_no_cudart, ('cuda drivers',)),
    (r"Failed to dlopen (lib[\w.-]+\.so(?:\.\d+)*)", _lib_not_loadable, ('dlopen',)),
    (r"kernel version (\S+) does not match DSO version (\S+)", _kernel_dso_mismatch, ('DSO version',)),
    (r"Could not find a version that satisfies the requirement (torch|tensorflow(?:-gpu)?)==([\w.+]+) \(from versions: ([^)]*)\)", _pip_versions, ('satisfies',)),
    (r"(?:Using )?pip \d+(?:\.\d+)* from \S+ \(python (\d+\.\d+)\)", _pip_python, ('pip ',)),
    (r"CUDA_ERROR_NO_DEVICE|no CUDA-capable device is detected", _simple("cuda-no-device"), ('NO_DEVICE', 'capable device')),
    (r"(?:^|:\s*)([^:]*?\S) with CUDA capability (sm_\d+a?) is not compatible with the current PyTorch installation", _arch_incompatible, ('CUDA capability',)),
    (r"The current PyTorch install supports CUDA capabilities ((?:(?:sm|compute)_\d+a?\s*)+)", _arch_supported, ('supports CUDA capabilities',)),
    (r"Found GPU\d+ (.+?) which is of cuda capability (\d+\.\d+)", _arch_too_old, ('cuda capability',)),
    (r"Ignoring visible gpu device \(device: \d+, name: (.+?), pci bus id: \S+, compute capability: (\d+\.\d+)\) with Cuda compute capability [\d.]+\. The minimum required Cuda capability is ([\d.]+)", _tf_ignoring_gpu, ('Ignoring visible gpu',)),
    (r"no kernel image is available for execution on the device", _simple("no-kernel-image"), ('kernel image',)),
    (r"CUDA_ERROR_INVALID_PTX|the provided PTX was compiled with an unsupported toolchain", _simple("invalid-ptx"), ('PTX',)),
    (r"Loaded runtime CuDNN library: (\d+(?:\.\d+)*) (?:\(compatibility version [\d.]+\) )?but source was compiled with:? (\d+(?:\.\d+)*)", _cudnn_loaded, ('CuDNN library',)),
    (r"cuDNN version incompatibility: PyTorch was compiled\s+against (\(?[\d, ]+\)?) but (?:found runtime version|linked against) (\(?[\d, ]+\)?)", _torch_cudnn_incompatible, ('cuDNN version incompatibility',)),
    (r"Could not load dynamic library '([^']+)'", _lib_not_loadable, ('dynamic library',)),
    (r"Could not find '(\w+\.dll)'\. TensorFlow requires that this DLL be installed", _lib_not_loadable, ('.dll',)),
    (r"(?:ImportError|OSError|error while loading shared libraries):?\s*(lib[\w+-]+\.so(?:\.[\d.]+)?): cannot open shared object file", _lib_not_loadable, ('shared object',)),
    (r"^(lib[\w+-]+\.so(?:\.[\d.]+)?): cannot open shared object file", _lib_not_loadable, ('shared object',)),
    (r"Could not load library (libcudnn_\w+\.so(?:\.\d+)*)", _cudnn_sublib, ('Could not load library',)),
    (r"Unable to load any of \{(libcudnn\w*\.so[^,}]*)", _cudnn_sublib, ('Unable to load any',)),
    (r"undefined symbol: \S+, version (libcudnn\w*\.so\.\d+)", _simple("cudnn-undefined-symbol"), ('undefined symbol',)),
    (r"Cannot dlopen some GPU libraries|Skipping registering GPU devices", _simple("tf-gpu-libs-missing", "tensorflow"), ('dlopen some GPU', 'Skipping registering')),
    (r"A module that was compiled using NumPy 1\.x cannot be run in\s*(?:NumPy\s*)?([\d.]+\d)?", _numpy_abi, ('NumPy 1.x',)),
    (r"_ARRAY_API not found|numpy\.dtype size changed, may indicate binary incompatibility|numpy\.core\.multiarray failed to import", _numpy_abi, ('_ARRAY_API', 'dtype size changed', 'multiarray failed')),
    (r"Torch not compiled with CUDA enabled", _not_compiled, ('not compiled with CUDA',)),
    (r"Found no NVIDIA driver on your system", _simple("no-driver-found", "torch"), ('no NVIDIA driver',)),
    (r"could not select device driver \"\" with capabilities: \[\[gpu\]\]", _docker_no_runtime, ('device driver',)),
    (r"CUDA out of memory|CUDA_ERROR_OUT_OF_MEMORY|OOM when allocating|OutOfMemoryError|out of memory trying to allocate", _simple("out-of-memory"), ('memory', 'OOM', 'Memory')),
    (r"Failed to get convolution algorithm\. This is probably because cuDNN failed to initialize|CUDNN_STATUS_NOT_INITIALIZED|CUDNN_STATUS_INTERNAL_ERROR", _simple("cudnn-init-failed"), ('convolution algorithm', 'CUDNN_STATUS')),
    (r"failed call to cuInit: (CUDA_ERROR_\w+)", _simple("cuinit-failed"), ('cuInit',)),
    (r"The detected CUDA version \(([\d.]+)\) mismatches the version that was used to compile\s*PyTorch \(([\d.]+)\)", _nvcc_mismatch, ('detected CUDA version',)),
    (r"No matching distribution found for (torch|tensorflow(?:-gpu)?|tensorflow-cpu|tensorrt(?:-libs|-bindings)?)\s*(?:(?:==|>=|<=|~=)\s*([\w.]+))?", _no_matching, ('No matching distribution',)),
    (r"^\s*Python (\d+\.\d+\.\d+)\s*$", _python_version, ('Python ',)),
    (r"^\s*(?:export\s+|\$\s*)?(CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES|LD_LIBRARY_PATH|CUDA_HOME|CUDA_PATH|CUDA_FORCE_PTX_JIT)=(\S*)\s*$", _env_var, ('=',)),
    (r"^\s*Linux \S+ (\d+\.\d+\.\d+\S*) #\d+", _uname, ('Linux ',)),
    (r"\b(\d+\.\d+\.\d+-\d+-Microsoft|\d+\.\d+\.\d+(?:\.\d+)?-microsoft-standard(?:-WSL2)?)\b", _wsl_kernel, ('icrosoft',)),
    (r"The NVIDIA Driver was not detected\.\s+GPU functionality will not be available", _docker_no_runtime, ('Driver was not detected',)),
    (r"ResourceExhaustedError", _simple("out-of-memory"), ('ResourceExhausted',)),
    (r"CUDA-enabled jaxlib is not installed\. Falling back to (\w+)", _jax_fallback, ('CUDA-enabled jaxlib',)),
    (r"CUDA backend failed to initialize: (.*)", _simple("jax-cuda-backend-failed", "jax"), ('CUDA backend failed',)),
    (r"^(jax|jaxlib):\s+(\d+\.\d+\.\d+[\w.+]*)\s*$|^(python): (\d+\.\d+\.\d+)(?: \(|\s*$)", _jax_print_env, ('jax', 'python: ')),
))
# A cheap first filter: most lines of a long log match none of the patterns.
_ANY = re.compile("|".join(("NVIDIA driver", "CUDA", "cuda", "sm_", "cuDNN", "CuDNN", "cudnn", "load", "shared object", "NumPy",
                            "numpy", "Torch not", "device driver", "memory", "cuInit", "distribution", "Python", "=", "Linux",
                            "kernel image", "PTX", "GPU", "undefined symbol", "Microsoft", "microsoft", "DLL", "Exhausted", "dlopen", "DSO",
                            "pip", "satisfies", "Insufficient", "NO_DEVICE", "capable", "jax", "python: ")))


def read(document: Document) -> Iterator[Observation]:
    lines = document.lines
    for number, line in document.numbered():
        if not _ANY.search(line):
            continue
        matched = False
        for pattern, handler, keywords in _PATTERNS:
            if not any(k in line for k in keywords):
                continue
            m = pattern.search(line)
            if m:
                matched = True
                yield from handler(m, number, line)
        if matched or number >= len(lines):
            continue
        # Messages wrap ("...driver on your\nsystem is too old (found version 12040)"): try the line joined to the
        # next, keeping only matches that start on this line (the next line is tried on its own in turn).
        joined = f"{line.rstrip()} {lines[number].strip()}"
        for pattern, handler, keywords in _PATTERNS:
            if not any(k in joined for k in keywords):
                continue
            m = pattern.search(joined)
            if m and m.start() < len(line) and m.end() > len(line.rstrip()) and not pattern.search(lines[number]):
                yield from handler(m, number, joined)
