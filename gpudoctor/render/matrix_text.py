"""Text for people from the answers of gpudoctor.matrix.queries: one function per answer, each returns lines."""

from __future__ import annotations

from gpudoctor.matrix.tables.gpu_specs import GpuSpec

from ..matrix.queries.keras_queries import KerasPin
from ..matrix.queries.keras_queries import KerasInfo
from ..matrix.tables.model import python_span
from ..matrix.queries import CudaInfo, CudnnInfo, DriverInfo, GpuInfo, Summary, TfInfo, TorchInfo
from .. import escape

QUERY_HINT = 'Query: gpudoctor matrix torch 2.7.1 | tf 2.16 | cuda 12.8 | cudnn 9.3 | gpu "RTX 4090" | driver 535.104.05 | driver R535 | keras 2.3.1 | keras --tf 2.16'


def _range(items) -> str:
    items = list(items)
    if not items:
        return "none"
    return items[0] if len(items) == 1 else f"{items[0]}–{items[-1]}"


def summary_lines(s: Summary, reviewed: str, with_sources: bool) -> list[str]:
    ccs = list(s.gpus)
    lines = [
        f"gpudoctor compatibility matrix, reviewed {reviewed}",
        "",
        f"PyTorch     {len(s.torch)} releases: {s.torch[0]} … {s.torch[-1]}",
        f"TensorFlow  {len(s.tensorflow)} releases: {s.tensorflow[0]} … {s.tensorflow[-1]}",
        f"CUDA        {len(s.cuda)} minor releases: {s.cuda[0]} … {s.cuda[-1]} (minimum drivers, minor-version floors)",
        f"cuDNN       {len(s.cudnn)} rows: {s.cudnn[0]} … {s.cudnn[-1]}",
        f"GPUs        {sum(len(n) for n in s.gpus.values())} product names, compute capability {ccs[-1]} … {ccs[0]}",
    ]
    if s.keras:
        k = s.keras
        lines.append(f"Keras       standalone {', '.join(k['standalone'])}; the Keras of TensorFlow {_range(k['tensorflow'])} "
                     f"(tf.keras inside TensorFlow up to {k['bundled_until']}, Keras 3 from {k['keras3_since']})")
    if with_sources:
        lines.append("")
        for name, info in s.files.items():
            lines.append(f"{name} (reviewed {info['reviewed']}):")
            lines.extend(f"  {url}" for url in info["sources"])
    return lines + ["", QUERY_HINT]


def torch_lines(t: TorchInfo) -> list[str]:
    experimental = f" ({', '.join(t.python_experimental)} experimental)" if t.python_experimental else ""
    lines = [
        f"torch {t.series} ({', '.join(t.versions)}), released {t.released or '?'}",
        f"  Python          {_range(t.python)}{experimental}",
        f"  plain pip       Linux: {t.default_linux}, Windows: {t.default_windows}",
        f"  torchvision     {t.torchvision or 'not confirmed'}    torchaudio {t.torchaudio or 'none'}    ROCm {t.rocm or '?'}",
        "  variants:",
    ]
    for v in t.variants:
        flags = " (default on Linux)" if v.default_linux else ""
        lines.append(f"    {v.tag:<6} CUDA {v.cuda or '-':<5} driver >= {v.min_driver_linux or '-'} Linux / {v.min_driver_windows or '-'} Windows{flags}")
        arch = " ".join(v.arch) if v.arch else "unknown"
        if v.arch and not v.arch_confirmed:
            arch += "  (unconfirmed: not read from the wheel)"
        if v.ptx_linux_only:
            arch += "  (PTX on Linux only)"
        lines.append(f"           arch {arch}")
        if v.cudnn:
            lines.append(f"           cuDNN {v.cudnn}")
        lines.append(f"           {v.install}")
    return lines


def keras_pin_line(pin: KerasPin | None) -> str:
    if pin is None:
        return "  Keras           not in the Keras table"
    if pin.tf_keras_is == "bundled":
        return f"  Keras           {pin.note}"
    line = f"  Keras           {' '.join(pin.requirements)} (tf.keras is {'Keras 3' if pin.tf_keras_is == 'keras 3' else 'the keras package'})"
    if pin.legacy_requirements:
        line += f"; Keras 2 code: {' '.join(pin.legacy_requirements)} and " + " ".join(f"{k}={v}" for k, v in pin.legacy_env)
    return line


def tf_lines(t: TfInfo) -> list[str]:
    arch = "unknown"
    if t.arch:
        arch = " ".join(t.arch) + ("" if t.arch_confirmed else "  (documented list, not read from the wheel)")
    lines = [
        f"tensorflow {t.series} ({', '.join(t.versions)})",
        _tf_python_line(t),
        f"  tested build    CUDA {t.cuda}, cuDNN {t.cudnn}; driver >= {t.min_driver_linux} Linux / {t.min_driver_windows} Windows",
        f"  arch            {arch}",
        *(f"                  {v}: {' '.join(a)}" for v, a in t.arch_by_version.items()),
        *([f"                  note: {t.arch_note}"] if t.arch_note else []),
        *([f"  GPU package     {t.gpu_package}; the plain `tensorflow` wheel of {', '.join(t.cpu_only_tensorflow)} is CPU-only"]
          if t.cpu_only_tensorflow else []),
        "  native Windows  " + (f"GPU supported (Python {python_span(t.windows_python)}; CUDA {t.windows_cuda}, cuDNN {t.windows_cudnn})"
                                if t.windows_native_gpu else "CPU only: use WSL2 for the GPU"),
    ]
    if t.and_cuda:
        lines.append("  and-cuda        " + "\n                  ".join(t.and_cuda))
    else:
        lines.append("  and-cuda        none (from 2.14): install CUDA and cuDNN yourself")
    return lines + [keras_pin_line(t.keras), f"  install (Linux) {t.install}"]


def _tf_python_line(t: TfInfo) -> str:
    """The wheels' union, and per release where the wheels differ (matrices/wheels.toml), with the table's claim."""
    line = f"  Python          {python_span(t.python)}"
    groups: list[tuple[list[str], str]] = []  # consecutive releases with the same wheel set
    for version, pythons in t.python_by_version.items():
        span = python_span(pythons)
        if groups and groups[-1][1] == span:
            groups[-1][0].append(version)
        else:
            groups.append(([version], span))
    if len(groups) > 1 or t.python_documented:
        line += "; per release: " + "; ".join(f"{vs[0] if len(vs) == 1 else vs[0] + '–' + vs[-1]}: {span}" for vs, span in groups)
    if t.python_documented:
        line += f" (tested-build table: {python_span(t.python_documented)})"
    return line


def cuda_lines(c: CudaInfo) -> list[str]:
    lines = [f"CUDA {c.cuda}"]
    for r in c.releases:
        windows = r["windows"] or (f"R{r['branch']}" if r["branch"] else "N/A")
        lines.append(f"  {r['label']:<18} driver >= {r['linux']} Linux / {windows} Windows")
    floor = c.minor_version_floor
    if floor:
        lines.append(f"  minor-version compatibility: any CUDA {c.major}.x runs on driver >= {floor['linux']} Linux / {floor['windows']} Windows "
                     "(limited feature set; no JIT of newer PTX)")
    else:
        lines.append("  no minor-version compatibility before CUDA 11: the driver must be at least the release's own")
    cc = c.compute_capabilities
    if cc:
        lines.append(f"  compiles for compute capability {cc['min']} … {cc['max']}" + (f" ({cc['note']})" if cc["note"] else ""))
    lines.append(f"  torch builds       {', '.join(c.torch_builds) or 'none'}")
    lines.append(f"  tensorflow builds  {', '.join(c.tensorflow_builds) or 'none'}")
    return lines


def cudnn_lines(c: CudnnInfo) -> list[str]:
    lines = [
        f"cuDNN {c.cudnn} (matrix row {c.row})",
        f"  CUDA builds     {', '.join(c.cuda) or 'see the support matrix'}",
        f"  compute capability {c.cc_min or '?'} … {c.cc_max or 'newest'}",
    ]
    return lines + ([f"  note            {c.note}"] if c.note else [])


def _newest(label: str, build: dict | None, name: str) -> str:
    if not build:
        return f"  newest {label:<8} none with code for it"
    code = "native code" if build["code"] == "sass" else "PTX JIT only"
    return f"  newest {label:<8} {name} ({code})"


def gpu_lines(g: GpuInfo) -> list[str]:
    # The query is what the user typed (it matched a row by its words): shown escaped, like any input.
    lines = [f"{escape.text(g.query)}: compute capability {g.compute_capability} ({g.architecture})", f"  same row        {', '.join(g.names)}"]
    if g.cuda_toolkits:
        upto = f" up to (not including) {g.cuda_toolkits_until}" if g.cuda_toolkits_until else " and newer"
        lines.append(f"  CUDA toolkits   {g.cuda_toolkits.rstrip('+')}{upto} can compile for it")
    torch = g.newest_torch
    lines.append(_newest("torch", torch, f"{torch['version']}+{torch['variant']}" if torch else ""))
    lines.append(_newest("TF", g.newest_tensorflow, g.newest_tensorflow["version"] if g.newest_tensorflow else ""))
    return lines + [line for spec in g.specs for line in spec_lines(spec)]


def spec_lines(s: GpuSpec) -> list[str]:
    """A board's data-sheet figures (dense TFLOPS); what the sources did not confirm is left out, not guessed."""
    flops = ", ".join(f"{p} {v:g}" for p, v in s.tflops.items())
    nvlink = None if s.nvlink_gbs is None else "none" if s.nvlink_gbs == 0 else f"{s.nvlink_gbs:g} GB/s"
    facts = [
        ("memory", f"{s.memory_gb:g} GB" if s.memory_gb else None),
        ("tensor cores", ", ".join(p for p in s.tflops if p != "fp32") or None),
        ("peak TFLOPS", f"{flops} (dense)" if flops else None),
        ("memory b/w", f"{s.memory_bandwidth_gbs:g} GB/s" if s.memory_bandwidth_gbs else None),
        ("PCIe", f"gen {s.pcie_gen} x{s.pcie_width}" if s.pcie_gen and s.pcie_width else None),
        ("NVLink", nvlink),
        ("power", f"{s.power_w:g} W" if s.power_w else None),
    ]
    return [f"  {s.name} (data sheet, reviewed {s.reviewed})"] + [f"    {k:<13}{v}" for k, v in facts if v]


def driver_lines(d: DriverInfo) -> list[str]:
    mvc = ", ".join(d.minor_version_compatible)
    mvc_line = f"  runs every CUDA {mvc} build through minor-version compatibility" if mvc else \
        "  runs no build through minor-version compatibility (it starts with CUDA 11 and the major's floor driver)"
    if d.branch is not None:
        since = f" from {d.from_driver} on" if d.from_driver else " (every driver of the branch)"
        return [f"driver branch {d.driver} ({d.os}): supports CUDA {d.cuda or 'older than the matrix knows'}{since if d.cuda else ''}",
                mvc_line + (" (from the major's floor driver on)" if mvc else "")]
    return [f"driver {d.driver} ({d.os}): supports CUDA {d.cuda or 'older than the matrix knows'}", mvc_line]


def keras_lines(k: KerasInfo) -> list[str]:
    lines = [f"keras {k.keras}: {k.kind}"]
    if k.kind in ("multi-backend", "tf.keras redirect"):
        lines.append(f"  TensorFlow      {k.tensorflow} (in the matrix: {', '.join(k.tensorflow_series) or 'none'})")
    else:
        lines.append(f"  TensorFlow      {', '.join(k.tensorflow_series) or 'none in the matrix'}")
    return lines + ([f"  note            {k.note}"] if k.note else [])


def keras_pin_lines(pin: KerasPin) -> list[str]:
    lines = [f"Keras for tensorflow {pin.tensorflow}", keras_pin_line(pin)]
    if pin.requirements:
        quoted = " ".join(f"'{r}'" for r in pin.requirements)
        lines.append(f"  install         pip install {quoted}")
    return lines + ([f"  note            {pin.note}"] if pin.note and pin.tf_keras_is != "bundled" else [])
