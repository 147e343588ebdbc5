"""What the frameworks print about themselves: ``tf.sysconfig.get_build_info()``, TensorFlow's device lists and
device-creation log lines, and the usual one-liners and REPL transcripts (``torch.__version__``,
``torch.cuda.is_available()``, ``print(torch.__version__, torch.version.cuda, torch.cuda.is_available())``)."""

from __future__ import annotations

import re
from typing import Iterator

from ...digits import ascii_int
from ..document import Document
from ..observation import Observation
from ._common import cudnn_from_code, major_minor

NAME = "framework output"

_BUILD_INFO = re.compile(r"['\"](cuda_version|cudnn_version|is_cuda_build|is_rocm_build|cuda_compute_capabilities)['\"]\s*[,:]\s*"
                         r"(\[[^\]]*\]|True|False|['\"][^'\"]*['\"])")
_PHYSICAL_GPU = re.compile(r"PhysicalDevice\(name='/physical_device:GPU:(\d+)', device_type='GPU'\)")
_DEVICE_LIST_LINE = re.compile(r"^\s*\[(PhysicalDevice\(.*)?\]\s*$")
_TF1_DEVICE = re.compile(r'^\s*(?:name: ")?/device:(XLA_GPU|GPU|XLA_CPU|CPU):(\d+)"?\s*$')
_TF_CREATED = re.compile(r"Created (?:TensorFlow )?device \(?/job:\S+/device:GPU:(\d+) with (\d+) MB memory\)? -> physical GPU "
                         r"\(device: \d+, name: (.+?), pci bus id: ([0-9a-fA-F:.]+)(?:, compute capability: (\d+\.\d+))?\)")
_TF_FOUND = re.compile(r"Found device (\d+) with properties:\s*(?:pciBusID: (\S+) )?name: (.+?)(?:\s+major: (\d+) minor: (\d+)|\s+computeCapability: (\d+\.\d+))")
_TF_VERSION_PRINT = re.compile(r"^\s*(?:>>> )?(?:print\()?tf\.__version__\)?\s*$")
_TF_GIT_VERSION = re.compile(r"^\s*v(\d+\.\d+\.\d+)(?:-rc\d+)?-\d+-g[0-9a-f]{7,}\s+(\d+\.\d+\.\d+(?:rc\d+)?)\s*$")
_TF_VERSION_LINE = re.compile(r"^\s*Tensor ?Flow [Vv]ersion:?\s*(\d+\.\d+\.\d+(?:rc\d+)?)\s*$")
_TORCH_TRIPLE = re.compile(r"^\s*(\d+\.\d+\.\d+(?:[a-z]+\d*)?(?:\+[\w.]+)?)\s+(None|\d+\.\d+)\s+(True|False)\s*$")
_REPL = re.compile(r"^\s*(?:>>>|In \[\d+\]:)\s*(?:print\()?\s*([\w.]+(?:\([^)]*\))?)\s*\)?\s*$")
_VALUE = re.compile(r"^\s*(?:Out\[\d+\]:\s*)?['\"]?([^'\"]*?)['\"]?\s*$")
# "torch.cuda.is_available(): True", "torch.__version__ = 2.1.0": an expression and its value on one line
_INLINE = re.compile(r"^\s*[-*]?\s*`?(?:print\()?\s*((?:torch|tf|tensorflow)\.[\w.]+(?:\(\))?)\s*\)?`?\s*(?::|=|->|→|returns?)\s*`?([\w.+]+)`?\s*$")

# A REPL expression -> (key, converter).
_EXPRESSIONS = {
    "torch.__version__": ("frameworks.torch.version", str),
    "torch.version.cuda": ("frameworks.torch.cuda", "cuda"),
    "torch.cuda.is_available()": ("frameworks.torch.cuda_available", "bool"),
    "torch.cuda.device_count()": ("frameworks.torch.device_count", "int"),
    "torch.backends.cudnn.version()": ("frameworks.torch.cudnn", "cudnn"),
    "tf.__version__": ("frameworks.tensorflow.version", str),
    "tensorflow.__version__": ("frameworks.tensorflow.version", str),
    "tf.test.is_built_with_cuda()": ("frameworks.tensorflow.is_cuda_build", "bool"),
}


def read(document: Document) -> Iterator[Observation]:
    yield from _build_info(document)
    yield from _device_lists(document)
    yield from _tf_logs(document)
    yield from _repl(document)
    yield from _inline(document)
    for number, m in document.find(_TF_GIT_VERSION, ("-g",)):  # print(tf.version.GIT_VERSION, tf.version.VERSION)
        yield Observation("frameworks.tensorflow.version", m.group(2), number, NAME + " (tf.version)")
    for number, m in document.find(_TF_VERSION_LINE, ("Flow ",)):
        yield Observation("frameworks.tensorflow.version", m.group(1), number, NAME)
    if any("torch" in line for line in document.lines[:2000]):
        for number, m in document.find(_TORCH_TRIPLE, ("True", "False")):
            yield Observation("frameworks.torch.version", m.group(1), number, NAME, "print(torch.__version__, torch.version.cuda, torch.cuda.is_available())")
            if m.group(2) == "None":
                yield Observation("frameworks.torch.build", "cpu" if "+rocm" not in m.group(1) else "rocm", number, NAME, "torch.version.cuda printed None")
            else:
                yield Observation("frameworks.torch.cuda", m.group(2), number, NAME)
                yield Observation("frameworks.torch.build", "cuda", number, NAME)
            yield Observation("frameworks.torch.cuda_available", m.group(3) == "True", number, NAME)


def _build_info(document: Document) -> Iterator[Observation]:
    for number in document.lines_with("cuda_version", "is_cuda_build"):
        line = document.lines[number - 1]
        found = dict(_BUILD_INFO.findall(line))
        if "is_cuda_build" not in found and "cuda_version" not in found:
            continue
        if found.get("is_cuda_build") in ("True", "False"):
            yield Observation("frameworks.tensorflow.is_cuda_build", found["is_cuda_build"] == "True", number, NAME + " (build info)")
        cuda = found.get("cuda_version", "").strip("'\"")
        # Windows builds write '64_112' for CUDA 11.2 and '64_8' for cuDNN 8.
        win = re.fullmatch(r"64_(\d+)(\d)", cuda)
        cuda = f"{win.group(1)}.{win.group(2)}" if win else major_minor(cuda)
        if cuda:
            yield Observation("frameworks.tensorflow.cuda", cuda, number, NAME + " (build info)")
        cudnn = found.get("cudnn_version", "").strip("'\"").removeprefix("64_")
        if re.fullmatch(r"\d+(?:\.\d+)*", cudnn):
            yield Observation("frameworks.tensorflow.cudnn", cudnn, number, NAME + " (build info)")
        caps = found.get("cuda_compute_capabilities")
        if caps:
            values = re.findall(r"['\"]([\w.]+)['\"]", caps)
            if values:
                yield Observation("frameworks.tensorflow.compute_capabilities", values, number, NAME + " (build info)")


def _device_lists(document: Document) -> Iterator[Observation]:
    lines = document.lines
    for number in document.lines_with("list_physical_devices", "Num GPUs Available"):
        line = lines[number - 1]
        if "list_physical_devices" in line and "GPU" in line or "Num GPUs Available" in line:
            m = re.search(r"Num GPUs Available:?\s*(\d+)", line)
            if m:
                yield Observation("frameworks.tensorflow.gpus_visible", int(m.group(1)), number, NAME)
                continue
            # The list printed on this line or the next non-empty one.
            for offset, candidate in enumerate(lines[number - 1:number + 2]):
                listed = _DEVICE_LIST_LINE.match(candidate) if offset else re.search(r"(\[(?:PhysicalDevice\(.*)?\])\s*$", candidate)
                if listed:
                    count = len(_PHYSICAL_GPU.findall(candidate))
                    yield Observation("frameworks.tensorflow.gpus_visible", count, number + offset, NAME)
                    break
    # TF 1.x device_lib.list_local_devices(): GPU devices, and XLA_GPU ones that are not usable GPUs.
    kinds: dict[str, int] = {}
    first = None
    for number, m in document.find(_TF1_DEVICE, ("/device:",)):
        kinds[m.group(1)] = kinds.get(m.group(1), 0) + 1
        first = first or number
    if first is not None and ("CPU" in kinds or "XLA_CPU" in kinds):
        yield Observation("frameworks.tensorflow.gpus_visible", kinds.get("GPU", 0), first, NAME + " (device_lib)")
        if kinds.get("XLA_GPU") and not kinds.get("GPU"):
            yield Observation("symptoms[]", {"kind": "tf-xla-gpu-only", "text": "XLA_GPU device listed without a GPU device",
                                             "framework": "tensorflow"}, first, NAME)
        xla = [f"{kinds[k]} {k}" for k in ("XLA_GPU", "XLA_CPU") if kinds.get(k)]
        if xla:  # XLA's compilation devices, not hardware: checks/platforms_misc.py explains them
            listed = ", ".join(f"{n} {k}" for k, n in kinds.items())
            yield Observation("symptoms[]", {"kind": "tf-xla-devices", "text": f"device list: {listed}",
                                             "framework": "tensorflow", "subject": ", ".join(xla)}, first, NAME)


def _tf_logs(document: Document) -> Iterator[Observation]:
    for number, m in document.find(_TF_FOUND, ("Found device ",)):
        index = int(m.group(1))
        yield Observation(f"gpus[{index}].index", index, number, NAME + " (TensorFlow log)")
        yield Observation(f"gpus[{index}].name", m.group(3).strip(), number, NAME + " (TensorFlow log)")
        cc = f"{m.group(4)}.{m.group(5)}" if m.group(4) else m.group(6)
        if cc:
            yield Observation(f"gpus[{index}].compute_capability", cc, number, NAME + " (TensorFlow log)")
    created = list(document.find(_TF_CREATED, ("-> physical GPU (device: ",)))
    for number, m in created:
        index = int(m.group(1))
        yield Observation(f"gpus[{index}].index", index, number, NAME + " (TensorFlow log)")
        yield Observation(f"gpus[{index}].name", m.group(3).strip(), number, NAME + " (TensorFlow log)")
        if m.group(5):
            yield Observation(f"gpus[{index}].compute_capability", m.group(5), number, NAME + " (TensorFlow log)")
    if created:
        yield Observation("frameworks.tensorflow.is_cuda_build", True, created[0][0], NAME + " (TensorFlow log)", "TensorFlow created a GPU device")
        yield Observation("frameworks.tensorflow.gpus_visible", len({m.group(1) for _, m in created}), created[0][0], NAME + " (TensorFlow log)")


def _repl(document: Document) -> Iterator[Observation]:
    lines = document.lines
    for number in document.lines_with(">>>", "In ["):  # a prompt: _REPL matches nothing else
        m = _REPL.match(lines[number - 1])
        if not m or m.group(1) not in _EXPRESSIONS or number >= len(lines):
            continue
        key, kind = _EXPRESSIONS[m.group(1)]
        answer = lines[number].strip()  # the next line
        if not answer or answer.startswith((">>>", "In [", "Traceback")):
            continue
        m = _VALUE.match(answer)
        if m is None:
            continue  # not a printed value (a traceback line, say)
        value = m.group(1).strip()
        converted = _convert(value, kind)
        if converted is not None:
            yield Observation(key, converted, number + 1, NAME + f" ({m.group(1)})")
        elif kind == "cuda" and value == "None":
            yield Observation("frameworks.torch.build", "cpu", number + 1, NAME, "torch.version.cuda printed None")


def _inline(document: Document) -> Iterator[Observation]:
    for number in document.lines_with("torch.", "tf.", "tensorflow."):
        m = _INLINE.match(document.lines[number - 1])
        if not m or m.group(1) not in _EXPRESSIONS:
            continue
        key, kind = _EXPRESSIONS[m.group(1)]
        converted = _convert(m.group(2), kind)
        if converted is not None:
            yield Observation(key, converted, number, NAME + f" ({m.group(1)})")


def _convert(value: str, kind: object):
    if kind is str:
        return value if re.match(r"\d+\.\d+", value) else None
    if kind == "bool":
        return {"True": True, "False": False}.get(value)
    if kind == "int":
        return ascii_int(value)
    if kind == "cuda":
        return major_minor(value)
    if kind == "cudnn":
        code = ascii_int(value, 9)
        return cudnn_from_code(code) if code is not None else None
    return None

