"""``gpudoctor matrix keras X`` and the Keras pin ``env`` writes beside TensorFlow: questions asked of the matrix's
Keras table (gpudoctor.matrix.tables.keras), each answer a frozen dataclass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...errors import UnknownRelease
from ..tables.keras import KerasPin, admits, parse_version, pin_for_tf

if TYPE_CHECKING:
    from ..tables.model import Matrix


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
