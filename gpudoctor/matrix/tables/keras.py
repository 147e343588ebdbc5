"""Keras beside TensorFlow (matrices/keras.toml): typed rows, their loader, and the lookups the checks use (the pin
`env` writes beside TensorFlow is a query: gpudoctor.matrix.queries.keras_queries).

Versions are compared with ``packaging`` (PEP 440): the TensorFlow wheels declare their Keras as specifiers such as
">=2.7.0rc0,<2.8", and installed versions can be pre-releases. Pure data and lookups: no I/O here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from packaging.version import Version
    from .reader import Reader

KERAS_FILE = "keras.toml"


def parse_version(text: str | None) -> Version | None:
    """"2.15.0" -> Version; None for None or anything PEP 440 cannot read."""
    if not text:
        return None
    return _parse_version(text)


@functools.lru_cache(maxsize=1024)  # Version is immutable; the same few versions are parsed by every keras check
def _parse_version(text: str) -> Version | None:
    from packaging.version import InvalidVersion, Version
    try:
        return Version(text.strip())
    except (InvalidVersion, ValueError):  # ValueError: a component longer than int() reads (untrusted text)
        return None


def minor_of(version: Version) -> str:
    return f"{version.major}.{version.minor}"


def admits(spec: str, version: Version) -> bool:
    """Does the requirement ``spec`` admit ``version`` (pre-releases included, as an installed one can be)?

    keras.toml's requirements are all ">=A" or ">=A,<B". Those two operators are decided here by PEP 440's rules
    over packaging's Version, because importing packaging.specifiers (it pulls in packaging.tags, logging and
    platform) costs ~10 ms of a `check` wherever TensorFlow is installed. Any other clause goes to SpecifierSet;
    tests/matrix/test_keras_admits.py holds both paths to SpecifierSet's answers over generated versions."""
    import re

    clauses = [re.fullmatch(_ORDERED_CLAUSE, clause) for clause in spec.split(",")]
    if all(clauses):
        from packaging.version import InvalidVersion, Version

        try:
            return all(_ordered(m.group(1), Version(m.group(2)), version) for m in clauses if m)
        except InvalidVersion:
            pass  # SpecifierSet says what is wrong with the requirement
    from packaging.specifiers import SpecifierSet
    return SpecifierSet(spec).contains(version, prereleases=True)


_ORDERED_CLAUSE = r"\s*(>=|<)\s*([0-9][0-9A-Za-z.]*)\s*"  # ">=2.15.0", "<2.16", ">=2.9.0rc0": no wildcard, no local


def _ordered(operator: str, bound: Version, version: Version) -> bool:
    """PEP 440's ordered comparisons (https://peps.python.org/pep-0440/#version-specifiers)."""
    from packaging.version import Version

    if operator == ">=":  # inclusive (a candidate's local label is to be ignored: it only ever sorts it later)
        return version >= bound
    # "<" exclusive: and never a pre-release of the bound itself, unless the bound is a pre-release
    if not version < bound:
        return False
    return bound.is_prerelease or not version.is_prerelease or Version(version.base_version) != Version(bound.base_version)


@dataclass(frozen=True)
class KerasStandalone:
    """A release series of the standalone ``keras`` distribution from before TensorFlow pinned it (2.2, 2.3, 2.4)."""

    series: str  # "2.3"
    kind: str  # "multi-backend" | "tf.keras redirect"
    tensorflow: str  # PEP 440 specifier of the TensorFlow it supports: ">=1.13,<2.1"
    note: str | None = None
    sources: tuple[str, ...] = ()

    @property
    def multi_backend(self) -> bool:
        return self.kind == "multi-backend"

    def fits(self, tf: Version) -> bool:
        return admits(self.tensorflow, tf)


@dataclass(frozen=True)
class KerasForTf:
    """One TensorFlow minor (2.6 and newer) and the Keras its wheel requires."""

    series: str  # TensorFlow minor: "2.15"
    wheel: str  # the tensorflow wheel whose METADATA declared ``keras``
    keras: str  # that requirement, a PEP 440 specifier: ">=2.15.0,<2.16" or ">=3.5.0"
    tf_keras: str | None = None  # the tf-keras minor for Keras 2 code (TF_USE_LEGACY_KERAS=1); None before 2.15
    note: str | None = None
    sources: tuple[str, ...] = ()

    @property
    def keras3(self) -> bool:
        """tf.keras is Keras 3: the requirement's lower bound is a Keras 3 release."""
        from packaging.specifiers import SpecifierSet
        from packaging.version import Version
        return any(Version(s.version).major >= 3 for s in SpecifierSet(self.keras) if s.operator in (">=", ">", "==", "~="))

    @property
    def pin(self) -> str:
        """The pip requirement that installs the Keras this TensorFlow expects: "keras==2.15.*" or "keras>=3.5.0"."""
        return f"keras{self.keras}" if self.keras3 else f"keras=={self.series}.*"

    @property
    def tf_keras_pin(self) -> str | None:
        return f"tf-keras=={self.tf_keras}.*" if self.tf_keras else None


@dataclass(frozen=True)
class KerasTable:
    """The Keras matrix: which TensorFlow bundles which Keras, and the standalone Keras releases."""
    bundled_until: str  # the last TensorFlow minor with tf.keras inside it
    keras3_since: str  # the first TensorFlow minor whose tf.keras is Keras 3
    legacy_env: str  # "TF_USE_LEGACY_KERAS"
    legacy_values: tuple[str, ...]  # the values TensorFlow reads as "use tf-keras"
    standalone: tuple[KerasStandalone, ...]  # oldest first
    tensorflow: tuple[KerasForTf, ...]  # oldest first
    legacy_sources: tuple[str, ...] = ()

    def for_tf(self, version: str | Version | None) -> KerasForTf | None:
        tf = parse_version(version) if version is None or isinstance(version, str) else version
        if tf is None:
            return None
        series = minor_of(tf)
        return next((r for r in self.tensorflow if r.series == series), None)

    def bundles(self, version: str | Version | None) -> bool | None:
        """TensorFlow has tf.keras inside (<= bundled_until); None when the version cannot be read."""
        from packaging.version import Version
        tf = parse_version(version) if version is None or isinstance(version, str) else version
        return None if tf is None else tf.release[:2] <= Version(self.bundled_until).release[:2]

    def standalone_row(self, keras: str | Version | None) -> KerasStandalone | None:
        k = parse_version(keras) if keras is None or isinstance(keras, str) else keras
        if k is None:
            return None
        series = minor_of(k)
        return next((r for r in self.standalone if r.series == series), None)

    def standalone_for_tf(self, tf: Version) -> KerasStandalone | None:
        """The newest standalone series that supports this TensorFlow (for TensorFlow <= bundled_until)."""
        fits = [r for r in self.standalone if r.fits(tf)]
        return fits[-1] if fits else None

    def legacy_enabled(self, value: str | None) -> bool:
        return value in self.legacy_values

    def known_tf(self) -> str:
        return f"{self.tensorflow[0].series}–{self.tensorflow[-1].series}" if self.tensorflow else "none"


# -- loading (called by gpudoctor.matrix.load_matrix with the file's reader) ------------------------------------


def load_keras_table(r: "Reader") -> KerasTable:
    from packaging.version import Version
    bundled, since = r.version("bundled_until"), r.version("keras3_since")
    standalone = tuple(
        KerasStandalone(t.version("series"), _kind(t), _spec(t, "tensorflow"), t.str("note", False), t.urls("sources"))
        for t in r.tables("standalone")
    )
    rows = []
    for t in r.tables("tensorflow"):
        row = KerasForTf(t.version("series"), t.version("wheel"), _spec(t, "keras"), t.version("tf_keras", False), t.str("note", False), t.urls("sources"))
        if minor_of(Version(row.wheel)) != row.series:
            raise t.fail("wheel", f"{row.wheel!r} is not a release of tensorflow {row.series}")
        if row.keras3 != (Version(row.series) >= Version(since)):
            raise t.fail("keras", f"{row.keras!r} disagrees with keras3_since = {since!r}")
        rows.append(row)
    order = [Version(r.series) for r in rows]
    if order != sorted(order) or len(set(order)) != len(order):
        raise r.fail("tensorflow", "rows must be in release order, one per TensorFlow minor")
    return KerasTable(bundled, since, r.str("legacy_env"), r.strs("legacy_values"), standalone, tuple(rows), r.urls("legacy_sources"))


def _kind(t: "Reader") -> str:
    kind = t.str("kind")
    if kind not in ("multi-backend", "tf.keras redirect"):
        raise t.fail("kind", f"must be 'multi-backend' or 'tf.keras redirect', got {kind!r}")
    return kind


def _spec(t: "Reader", key: str) -> str:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    value = t.str(key)
    try:
        SpecifierSet(value)
    except InvalidSpecifier:
        raise t.fail(key, f"not a PEP 440 version specifier: {value!r}") from None
    return value
