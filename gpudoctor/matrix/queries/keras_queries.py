"""``gpudoctor matrix keras X`` and the Keras pin ``env`` writes beside TensorFlow: questions asked of the matrix's
Keras table (gpudoctor.matrix.tables.keras), each answer a frozen dataclass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...errors import UnknownRelease
from ..tables.keras import KerasTable, admits, minor_of, parse_version

if TYPE_CHECKING:
    from ..tables.model import Matrix


@dataclass(frozen=True)
class KerasPin:
    """What an environment with TensorFlow ``tensorflow`` installs beside it for Keras (``keras_for_tf``)."""

    tensorflow: str  # the TensorFlow minor asked about
    tf_keras_is: str  # "bundled" (inside TensorFlow) | "keras 2" (the keras package) | "keras 3"
    requirements: tuple[str, ...]  # pip requirements to add beside tensorflow (empty: none)
    legacy_requirements: tuple[str, ...] = ()  # for Keras 2 code where tf.keras is Keras 3
    legacy_env: tuple[tuple[str, str], ...] = ()  # (("TF_USE_LEGACY_KERAS", "1"),) with legacy_requirements
    note: str | None = None
    sources: tuple[str, ...] = ()


def pin_for_tf(table: KerasTable, tf_version: str) -> KerasPin | None:
    """The Keras to pin beside TensorFlow ``tf_version`` ("2.15", "2.16.1"); None when the table does not know it."""
    tf = parse_version(tf_version)
    if tf is None:
        return None
    series = minor_of(tf)
    if table.bundles(tf):
        return KerasPin(series, "bundled", (), note=f"tf.keras is part of TensorFlow {series}: install no separate keras")
    row = table.for_tf(tf)
    if row is None:
        return None
    if not row.keras3 or not row.tf_keras_pin:
        return KerasPin(series, "keras 3" if row.keras3 else "keras 2", (row.pin,), note=row.note, sources=row.sources)
    return KerasPin(series, "keras 3", (row.pin,), (row.tf_keras_pin,), ((table.legacy_env, "1"),), row.note, row.sources)


@dataclass(frozen=True)
class KerasInfo:
    """What one Keras release needs from TensorFlow, as `gpudoctor matrix` shows it."""
    keras: str
    kind: str  # "multi-backend" | "tf.keras redirect" | "tf.keras of TensorFlow 2.x" | "keras 3"
    tensorflow: str  # the requirement on TensorFlow, as a PEP 440 specifier or a series list
    tensorflow_series: tuple[str, ...]  # the TensorFlow minors of the matrix it fits
    note: str | None
    sources: tuple[str, ...]


def keras_for_tf(m: "Matrix", release: str) -> KerasPin:
    """The Keras to install beside TensorFlow ``release`` (for env): raises UnknownRelease when no row says."""
    pin = pin_for_tf(m.keras, release) if m.keras else None
    if pin is None:
        raise UnknownRelease("tensorflow", release, f"Keras pins for {m.keras.bundled_until} and older, and {m.keras.known_tf()}" if m.keras else "no Keras table")
    return pin


def keras_info(m: "Matrix", version: str) -> KerasInfo:
    from packaging.version import Version
    t, v = m.keras, parse_version(version)
    keras2 = [r.series for r in t.tensorflow if not r.keras3] if t else []
    known = f"standalone {', '.join(r.series for r in t.standalone)}; {keras2[0]}–{keras2[-1]} (the tf.keras of the same TensorFlow); 3.x" if keras2 else "none"
    row = t.standalone_row(v) if t and v else None
    tf_series = [r.series for r in m.tensorflow]
    sources = tuple(m.sources.get("keras.toml", ()))
    if row is not None:
        fits = tuple(s for s in tf_series if row.fits(Version(s)))
        return KerasInfo(str(v), row.kind, row.tensorflow, fits, row.note, tuple(dict.fromkeys(row.sources + sources)))
    tf_row = t.for_tf(v) if t and v and v.major == 2 else None
    if tf_row is not None and not tf_row.keras3:
        return KerasInfo(str(v), f"tf.keras of TensorFlow {tf_row.series}", f"=={tf_row.series}.*", (tf_row.series,), tf_row.note, tf_row.sources)
    if t and v and v.major == 3:
        fits = tuple(r.series for r in t.tensorflow if r.keras3 and admits(r.keras, v))
        keras215 = next((r for r in t.tensorflow if r.tf_keras and not r.keras3), None)
        note = keras215.note if keras215 else None
        return KerasInfo(str(v), "keras 3", ", ".join(fits) or "none", fits, note, sources)
    raise UnknownRelease("keras", version, known)
