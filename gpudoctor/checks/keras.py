"""Keras beside TensorFlow: a Keras the installed TensorFlow does not fit, and tf-keras / TF_USE_LEGACY_KERAS.

The rules come from matrices/keras.toml (gpudoctor.matrix.tables.keras): multi-backend Keras 2.2/2.3 and the 2.4 redirect
before TensorFlow pinned Keras, the keras package pinned to the TensorFlow minor from 2.6 to 2.15, and Keras 3 as
tf.keras from 2.16 with tf-keras for Keras 2 code. Pure: reads Facts and Matrix; unknown never raises a finding."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, NamedTuple

from ..matrix.tables.keras import KerasForTf, KerasTable, admits, minor_of, parse_version
from ..model import Facts, Finding, Fix, Section, Severity

if TYPE_CHECKING:
    from packaging.version import Version

    from ..matrix.tables.model import Matrix

TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tensorflow-intel", "tensorflow-macos")
KERAS3_NOTES = "https://github.com/tensorflow/tensorflow/releases/tag/v2.16.1"
KERAS_GETTING_STARTED = "https://keras.io/getting_started/"
MULTI_BACKEND_NOTES = "https://github.com/keras-team/keras/releases/tag/2.3.0"


class _Package(NamedTuple):
    """The keras or tf-keras distribution as python_packages reports it: installed, absent or unknown."""
    state: str  # "installed" | "absent" (probed, not there) | "unknown"
    version: Version | None = None
    text: str | None = None


class _Setup(NamedTuple):
    """What the Keras checks judge: the Keras table, the installed TensorFlow and both Keras packages."""
    table: KerasTable
    tf: Version
    tf_text: str
    keras: _Package
    tf_keras: _Package
    legacy: str | None  # the value of TF_USE_LEGACY_KERAS; None when unset or unknown
    env_known: bool

    @property
    def row(self) -> KerasForTf | None:
        return self.table.for_tf(self.tf)

    @property
    def legacy_on(self) -> bool:
        return self.env_known and self.table.legacy_enabled(self.legacy)

    def tf_line(self) -> str:
        return f"tensorflow {self.tf_text}"


def _package(facts: Facts, name: str) -> _Package:
    packages = facts.python_packages
    if packages is None or name not in packages:
        return _Package("unknown")
    text = packages[name]
    if text is None:
        return _Package("absent")
    version = parse_version(text)
    return _Package("installed", version, text) if version else _Package("unknown")


def _setup(facts: Facts, matrix: "Matrix | None") -> _Setup | None:
    table = getattr(matrix, "keras", None)
    if table is None:
        return None
    fw = facts.frameworks.tensorflow if facts.frameworks else None
    packages = facts.python_packages or {}
    text = (fw.version if fw else None) or next((packages[d] for d in TF_DISTRIBUTIONS if packages.get(d)), None)
    if text is None:  # no TensorFlow: nothing to pair, and no reason to import packaging (check's time budget)
        return None
    tf = parse_version(text)
    if tf is None:
        return None
    env = facts.host.env if facts.host else None
    legacy = env.get(table.legacy_env) if env is not None else None
    return _Setup(table, tf, text, _package(facts, "keras"), _package(facts, "tf-keras"), legacy, env is not None)


def _pip(*requirements: str) -> str:
    return "pip install " + " ".join(f"'{r}'" for r in requirements)


# -- keras-standalone-tf-mismatch -------------------------------------------------------------------------------


def keras_standalone_tf_mismatch(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    """Multi-backend Keras (2.2.x, 2.3.x) or the 2.4 redirect beside a TensorFlow its release does not support."""
    s = _setup(facts, matrix)
    if s is None or s.keras.state != "installed":
        return
    row = s.table.standalone_row(s.keras.version)
    if row is None or row.fits(s.tf) or not (row.multi_backend or s.table.bundles(s.tf)):
        return
    kind = "multi-backend " if row.multi_backend else ""
    what = "" if row.multi_backend else " (a redirect to tf.keras)"
    fits = s.row
    if fits is not None:
        commands = (_pip(fits.pin),)
        summary = f"Install the keras that TensorFlow {fits.series} pins (its tf.keras); multi-backend Keras ended with 2.3"
    elif not s.table.bundles(s.tf):  # a TensorFlow newer than the table: let its own requirement choose
        commands = ("pip uninstall -y keras", f"pip install 'tensorflow=={s.tf_text}'   # reinstalls the keras it declares")
        summary = f"Replace it with the keras that TensorFlow {s.tf_text} declares; multi-backend Keras ended with 2.3"
    else:
        other = s.table.standalone_for_tf(s.tf)
        commands = ("pip uninstall -y keras   # and import Keras from TensorFlow: from tensorflow import keras",)
        if other is not None:
            commands += (_pip(f"keras=={other.series}.*") + f"   # or keep standalone Keras: {other.series}.x supports this TensorFlow",)
        summary = f"Use the tf.keras inside TensorFlow {minor_of(s.tf)}, or a standalone Keras release that supports it"
    yield Finding(
        "keras-standalone-tf-mismatch", Severity.ERROR, Section.TENSORFLOW,
        f"{kind}Keras {s.keras.text}{what} does not support TensorFlow {s.tf_text}",
        (f"keras {s.keras.text}: {row.note}" if row.note else f"keras {s.keras.text}",
         f"keras {row.series}.x supports tensorflow {row.tensorflow}", s.tf_line()),
        Fix(summary, commands, row.sources[0] if row.sources else MULTI_BACKEND_NOTES),
    )


# -- keras-tf-version-mismatch ----------------------------------------------------------------------------------


def keras_tf_version_mismatch(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    """The keras package does not satisfy the Keras requirement of the installed TensorFlow (2.6 and newer), or a
    keras made for TensorFlow 2.6+ sits beside a TensorFlow that has tf.keras inside."""
    s = _setup(facts, matrix)
    if s is None:
        return
    if s.table.bundles(s.tf):
        yield from _newer_keras_beside_bundled(s)
        return
    row = s.row
    if row is None or s.keras.state == "unknown":
        return
    have = s.keras.version
    if have is not None:
        standalone = s.table.standalone_row(have)
        if (standalone is not None and standalone.multi_backend) or admits(row.keras, have):
            return
    severity, title, summary, commands = _mismatch(s, row, have)
    evidence = (f"keras {s.keras.text}" if have else "keras: not installed", s.tf_line(), f"the tensorflow {row.wheel} wheel requires keras{row.keras}")
    if row.note and have is not None and have.major >= 3:
        evidence += (row.note,)
    if row.keras3:
        url = KERAS3_NOTES
    else:
        url = KERAS_GETTING_STARTED if have is not None and have.major >= 3 else f"https://pypi.org/project/tensorflow/{row.wheel}/"
    yield Finding("keras-tf-version-mismatch", severity, Section.TENSORFLOW, title, evidence, Fix(summary, commands, url))


def _mismatch(s: _Setup, row: KerasForTf, have: "Version | None") -> tuple[Severity, str, str, tuple[str, ...]]:
    tf = f"TensorFlow {s.tf_text}"
    if have is None:
        return Severity.ERROR, f"{tf} needs keras{row.keras}, and keras is not installed", \
            f"Install the Keras that TensorFlow {row.series} uses as tf.keras", (_pip(row.pin),)
    if row.keras3 and have.major < 3:
        commands = (_pip(row.pin),)
        if row.tf_keras_pin:
            commands = (_pip(row.pin, row.tf_keras_pin), f"export {s.table.legacy_env}=1   # only for Keras 2 code: tf.keras is then tf-keras")
        return Severity.ERROR, f"Keras {s.keras.text} is Keras 2, but tf.keras in {tf} is Keras 3", \
            f"Install Keras 3 for TensorFlow {row.series}; keep Keras 2 code running with tf-keras and {s.table.legacy_env}=1", commands
    if row.keras3:
        return Severity.WARNING, f"Keras {s.keras.text} is older than {tf} requires (keras{row.keras})", \
            f"Upgrade Keras to the release TensorFlow {row.series} declares", (_pip(row.pin),)
    if have.major >= 3:
        severity = Severity.WARNING if row.tf_keras else Severity.ERROR  # keras.io documents Keras 3 on TF 2.15 only
        return severity, f"Keras {s.keras.text} is Keras 3, but {tf} pins Keras {row.series} (tf.keras)", \
            f"Install the Keras {row.series} that TensorFlow {row.series} pins, or move to TensorFlow {s.table.keras3_since}+ for Keras 3", (_pip(row.pin),)
    return Severity.ERROR, f"Keras {s.keras.text} does not match {tf}: from 2.6 to 2.15 tf.keras is the keras of the same minor", \
        f"Install keras {row.series}.x, the tf.keras of TensorFlow {row.series}", (_pip(row.pin),)


def _newer_keras_beside_bundled(s: _Setup) -> Iterator[Finding]:
    have = s.keras.version
    if s.keras.state != "installed" or have is None or s.table.standalone_row(have) is not None:
        return
    if have.major < 3 and s.table.for_tf(have) is None:
        return  # a Keras the table does not place (1.x, 2.0, 2.1): not judged
    other = s.table.standalone_for_tf(s.tf)
    commands = ("pip uninstall -y keras   # and import Keras from TensorFlow: from tensorflow import keras",)
    if other is not None:
        commands += (_pip(f"keras=={other.series}.*") + f"   # or a standalone Keras that supports TensorFlow {minor_of(s.tf)}",)
    yield Finding(
        "keras-tf-version-mismatch", Severity.ERROR, Section.TENSORFLOW,
        f"Keras {s.keras.text} needs a newer TensorFlow than {s.tf_text}, which has tf.keras inside",
        (f"keras {s.keras.text}", s.tf_line(),
         f"TensorFlow {s.table.bundled_until} and older bundle tf.keras; keras 2.6+ is the tf.keras of the TensorFlow of its own minor, Keras 3 needs TensorFlow {s.table.keras3_since}+"),
        Fix(f"Remove the standalone keras and use tf.keras from TensorFlow {minor_of(s.tf)}", commands, "https://github.com/keras-team/keras/releases/tag/v2.6.0"),
    )


# -- tf-keras (Keras 2 on a Keras 3 TensorFlow) -----------------------------------------------------------------


def tf_keras_missing(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    s = _setup(facts, matrix)
    row = s.row if s else None
    if s is None or row is None or not row.tf_keras or not s.legacy_on or s.tf_keras.state != "absent":
        return
    yield Finding(
        "tf-keras-missing", Severity.ERROR, Section.TENSORFLOW,
        f"{s.table.legacy_env}={s.legacy} makes tf.keras load tf-keras, which is not installed",
        (f"{s.table.legacy_env}={s.legacy!r}", "tf-keras: not installed", s.tf_line()),
        Fix(f"Install the tf-keras of TensorFlow {row.series}, or unset {s.table.legacy_env} to use Keras 3",
            (_pip(row.tf_keras_pin),), KERAS3_NOTES),
    )


def tf_keras_version_mismatch(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    s = _setup(facts, matrix)
    row = s.row if s else None
    have = s.tf_keras.version if s else None
    if s is None or row is None or not row.tf_keras or have is None or minor_of(have) == row.tf_keras:
        return
    severity = Severity.ERROR if s.legacy_on else Severity.WARNING
    used = f"{s.table.legacy_env}={s.legacy} makes tf.keras load it" if s.legacy_on else "code that imports tf_keras loads it"
    yield Finding(
        "tf-keras-version-mismatch", severity, Section.TENSORFLOW,
        f"tf-keras {s.tf_keras.text} does not match TensorFlow {s.tf_text}: {used}",
        (f"tf-keras {s.tf_keras.text}", s.tf_line(), f"tf-keras {row.tf_keras}.x is the Keras 2 of TensorFlow {row.series}"),
        Fix(f"Install the tf-keras of TensorFlow {row.series}", (_pip(row.tf_keras_pin),), f"https://pypi.org/project/tf-keras/{row.tf_keras}.0/"),
    )


def tf_legacy_keras_value_ignored(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    """TF_USE_LEGACY_KERAS set to a value TensorFlow does not read as on ("TRUE", "yes", " 1")."""
    s = _setup(facts, matrix)
    row = s.row if s else None
    if s is None or row is None or not row.tf_keras or s.legacy is None or s.legacy_on:
        return
    if s.legacy.strip().lower() not in ("1", "true", "yes", "on", "y"):
        return
    yield Finding(
        "tf-legacy-keras-value-ignored", Severity.WARNING, Section.TENSORFLOW,
        f"{s.table.legacy_env}={s.legacy!r} is not read as on: tf.keras stays {'Keras 3' if row.keras3 else 'the keras package'}",
        (f"{s.table.legacy_env}={s.legacy!r}", f"TensorFlow reads only {', '.join(s.table.legacy_values)} as on", s.tf_line()),
        Fix("Set it to 1", (f"export {s.table.legacy_env}=1",), s.table.legacy_sources[0] if s.table.legacy_sources else KERAS3_NOTES),
    )


CHECKS = (
    keras_standalone_tf_mismatch,
    keras_tf_version_mismatch,
    tf_keras_missing,
    tf_keras_version_mismatch,
    tf_legacy_keras_value_ignored,
)
