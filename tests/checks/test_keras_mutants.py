"""Keras beside TensorFlow, finding by finding (issue 11: mutation score of checks/keras.py).

test_keras.py says which finding each pairing raises; this file pins the whole finding a user reads for every
branch of the rules (title, each evidence line, the fix summary, its pip commands and its link), and the edges:
which package names count as TensorFlow, which TF_USE_LEGACY_KERAS values are near misses."""

from __future__ import annotations

import pytest

from gpudoctor.checks import keras
from gpudoctor.model import Facts, Host, Section, Severity
from tests.checks.test_keras import MATRIX, UNSET, findings, machine, only

UNINSTALL = "pip uninstall -y keras   # and import Keras from TensorFlow: from tensorflow import keras"
KERAS3_NOTES = "https://github.com/tensorflow/tensorflow/releases/tag/v2.16.1"
LEGACY_1 = "export TF_USE_LEGACY_KERAS=1   # only for Keras 2 code: tf.keras is then tf-keras"

CASES = {
    "keras3-on-tf215": (
        ("2.15.0", "3.3.3"),
        ("keras-tf-version-mismatch", Severity.WARNING, "Keras 3.3.3 is Keras 3, but TensorFlow 2.15.0 pins Keras 2.15 (tf.keras)"),
        ("keras 3.3.3", "tensorflow 2.15.0", "the tensorflow 2.15.0 wheel requires keras>=2.15.0,<2.16", "keras.io: *"),
        ("Install the Keras 2.15 that TensorFlow 2.15 pins, or move to TensorFlow 2.16+ for Keras 3", ("pip install 'keras==2.15.*'",),
         "https://keras.io/getting_started/"),
    ),
    "keras3-on-tf214": (
        ("2.14.0", "3.0.0"),
        ("keras-tf-version-mismatch", Severity.ERROR, "Keras 3.0.0 is Keras 3, but TensorFlow 2.14.0 pins Keras 2.14 (tf.keras)"),
        ("keras 3.0.0", "tensorflow 2.14.0", "the tensorflow 2.14.0 wheel requires keras>=2.14.0,<2.15"),
        ("Install the Keras 2.14 that TensorFlow 2.14 pins, or move to TensorFlow 2.16+ for Keras 3", ("pip install 'keras==2.14.*'",),
         "https://keras.io/getting_started/"),
    ),
    "keras212-on-tf213": (
        ("2.13.1", "2.12.0"),
        ("keras-tf-version-mismatch", Severity.ERROR, "Keras 2.12.0 does not match TensorFlow 2.13.1: from 2.6 to 2.15 tf.keras is the keras of the same minor"),
        ("keras 2.12.0", "tensorflow 2.13.1", "the tensorflow 2.13.0 wheel requires keras>=2.13.1,<2.14"),
        ("Install keras 2.13.x, the tf.keras of TensorFlow 2.13", ("pip install 'keras==2.13.*'",), "https://pypi.org/project/tensorflow/2.13.0/"),
    ),
    "keras2-on-tf216": (
        ("2.16.1", "2.15.0"),
        ("keras-tf-version-mismatch", Severity.ERROR, "Keras 2.15.0 is Keras 2, but tf.keras in TensorFlow 2.16.1 is Keras 3"),
        ("keras 2.15.0", "tensorflow 2.16.1", "the tensorflow 2.16.1 wheel requires keras>=3.0.0"),
        ("Install Keras 3 for TensorFlow 2.16; keep Keras 2 code running with tf-keras and TF_USE_LEGACY_KERAS=1",
         ("pip install 'keras>=3.0.0' 'tf-keras==2.16.*'", LEGACY_1), KERAS3_NOTES),
    ),
    "keras33-on-tf218": (
        ("2.18.0", "3.3.3"),
        ("keras-tf-version-mismatch", Severity.WARNING, "Keras 3.3.3 is older than TensorFlow 2.18.0 requires (keras>=3.5.0)"),
        ("keras 3.3.3", "tensorflow 2.18.0", "the tensorflow 2.18.0 wheel requires keras>=3.5.0"),
        ("Upgrade Keras to the release TensorFlow 2.18 declares", ("pip install 'keras>=3.5.0'",), KERAS3_NOTES),
    ),
    "no-keras-on-tf215": (
        ("2.15.0", None),
        ("keras-tf-version-mismatch", Severity.ERROR, "TensorFlow 2.15.0 needs keras>=2.15.0,<2.16, and keras is not installed"),
        ("keras: not installed", "tensorflow 2.15.0", "the tensorflow 2.15.0 wheel requires keras>=2.15.0,<2.16"),
        ("Install the Keras that TensorFlow 2.15 uses as tf.keras", ("pip install 'keras==2.15.*'",), "https://pypi.org/project/tensorflow/2.15.0/"),
    ),
    "no-keras-on-tf216": (
        ("2.16.1", None),
        ("keras-tf-version-mismatch", Severity.ERROR, "TensorFlow 2.16.1 needs keras>=3.0.0, and keras is not installed"),
        ("keras: not installed", "tensorflow 2.16.1", "the tensorflow 2.16.1 wheel requires keras>=3.0.0"),
        ("Install the Keras that TensorFlow 2.16 uses as tf.keras", ("pip install 'keras>=3.0.0'",), KERAS3_NOTES),
    ),
    "keras215-beside-tf24": (
        ("2.4.1", "2.15.0"),
        ("keras-tf-version-mismatch", Severity.ERROR, "Keras 2.15.0 needs a newer TensorFlow than 2.4.1, which has tf.keras inside"),
        ("keras 2.15.0", "tensorflow 2.4.1",
         "TensorFlow 2.5 and older bundle tf.keras; keras 2.6+ is the tf.keras of the TensorFlow of its own minor, Keras 3 needs TensorFlow 2.16+"),
        ("Remove the standalone keras and use tf.keras from TensorFlow 2.4",
         (UNINSTALL, "pip install 'keras==2.4.*'   # or a standalone Keras that supports TensorFlow 2.4"),
         "https://github.com/keras-team/keras/releases/tag/v2.6.0"),
    ),
    "keras3-beside-tf21": (
        ("2.1.0", "3.3.3"),
        ("keras-tf-version-mismatch", Severity.ERROR, "Keras 3.3.3 needs a newer TensorFlow than 2.1.0, which has tf.keras inside"),
        ("keras 3.3.3", "tensorflow 2.1.0",
         "TensorFlow 2.5 and older bundle tf.keras; keras 2.6+ is the tf.keras of the TensorFlow of its own minor, Keras 3 needs TensorFlow 2.16+"),
        ("Remove the standalone keras and use tf.keras from TensorFlow 2.1", (UNINSTALL,), "https://github.com/keras-team/keras/releases/tag/v2.6.0"),
    ),
    "multi-backend-225-on-tf215": (
        ("2.15.0", "2.2.5"),
        ("keras-standalone-tf-mismatch", Severity.ERROR, "multi-backend Keras 2.2.5 does not support TensorFlow 2.15.0"),
        ("keras 2.2.5: Keras 2.2.5 is the last release that implements the 2.2.* API and the last to only support TensorFlow 1",
         "keras 2.2.x supports tensorflow <2.0", "tensorflow 2.15.0"),
        ("Install the keras that TensorFlow 2.15 pins (its tf.keras); multi-backend Keras ended with 2.3", ("pip install 'keras==2.15.*'",),
         "https://github.com/keras-team/keras/releases/tag/2.2.5"),
    ),
    "multi-backend-231-on-tf22": (
        ("2.2.0", "2.3.1"),
        ("keras-standalone-tf-mismatch", Severity.ERROR, "multi-backend Keras 2.3.1 does not support TensorFlow 2.2.0"),
        ("keras 2.3.1: *", "keras 2.3.x supports tensorflow >=1.13,<2.1", "tensorflow 2.2.0"),
        ("Use the tf.keras inside TensorFlow 2.2, or a standalone Keras release that supports it",
         (UNINSTALL, "pip install 'keras==2.4.*'   # or keep standalone Keras: 2.4.x supports this TensorFlow"),
         "https://github.com/keras-team/keras/releases/tag/2.3.0"),
    ),
    "redirect-24-on-tf115": (
        ("1.15.0", "2.4.3"),
        ("keras-standalone-tf-mismatch", Severity.ERROR, "Keras 2.4.3 (a redirect to tf.keras) does not support TensorFlow 1.15.0"),
        ("keras 2.4.3: Keras 2.4.0 only redirects the keras package to tf.keras; multi-backend Keras is discontinued",
         "keras 2.4.x supports tensorflow >=2.2.0", "tensorflow 1.15.0"),
        ("Use the tf.keras inside TensorFlow 1.15, or a standalone Keras release that supports it",
         (UNINSTALL, "pip install 'keras==2.3.*'   # or keep standalone Keras: 2.3.x supports this TensorFlow"),
         "https://github.com/keras-team/keras/releases/tag/2.4.0"),
    ),
    "multi-backend-225-on-tf-newer-than-table": (
        ("2.99.0", "2.2.5"),
        ("keras-standalone-tf-mismatch", Severity.ERROR, "multi-backend Keras 2.2.5 does not support TensorFlow 2.99.0"),
        ("keras 2.2.5: *", "keras 2.2.x supports tensorflow <2.0", "tensorflow 2.99.0"),
        ("Replace it with the keras that TensorFlow 2.99.0 declares; multi-backend Keras ended with 2.3",
         ("pip uninstall -y keras", "pip install 'tensorflow==2.99.0'   # reinstalls the keras it declares"),
         "https://github.com/keras-team/keras/releases/tag/2.2.5"),
    ),
    "tf-keras-missing": (
        ("2.16.1", "3.3.3", None, {"TF_USE_LEGACY_KERAS": "1"}),
        ("tf-keras-missing", Severity.ERROR, "TF_USE_LEGACY_KERAS=1 makes tf.keras load tf-keras, which is not installed"),
        ("TF_USE_LEGACY_KERAS='1'", "tf-keras: not installed", "tensorflow 2.16.1"),
        ("Install the tf-keras of TensorFlow 2.16, or unset TF_USE_LEGACY_KERAS to use Keras 3", ("pip install 'tf-keras==2.16.*'",), KERAS3_NOTES),
    ),
    "tf-keras-216-on-tf217-legacy": (
        ("2.17.0", "3.3.3", "2.16.0", {"TF_USE_LEGACY_KERAS": "1"}),
        ("tf-keras-version-mismatch", Severity.ERROR, "tf-keras 2.16.0 does not match TensorFlow 2.17.0: TF_USE_LEGACY_KERAS=1 makes tf.keras load it"),
        ("tf-keras 2.16.0", "tensorflow 2.17.0", "tf-keras 2.17.x is the Keras 2 of TensorFlow 2.17"),
        ("Install the tf-keras of TensorFlow 2.17", ("pip install 'tf-keras==2.17.*'",), "https://pypi.org/project/tf-keras/2.17.0/"),
    ),
    "tf-keras-216-on-tf217": (
        ("2.17.0", "3.3.3", "2.16.0", {}),
        ("tf-keras-version-mismatch", Severity.WARNING, "tf-keras 2.16.0 does not match TensorFlow 2.17.0: code that imports tf_keras loads it"),
        ("tf-keras 2.16.0", "tensorflow 2.17.0", "tf-keras 2.17.x is the Keras 2 of TensorFlow 2.17"),
        ("Install the tf-keras of TensorFlow 2.17", ("pip install 'tf-keras==2.17.*'",), "https://pypi.org/project/tf-keras/2.17.0/"),
    ),
    "legacy-TRUE-on-tf217": (
        ("2.17.0", "3.3.3", "2.17.0", {"TF_USE_LEGACY_KERAS": "TRUE"}),
        ("tf-legacy-keras-value-ignored", Severity.WARNING, "TF_USE_LEGACY_KERAS='TRUE' is not read as on: tf.keras stays Keras 3"),
        ("TF_USE_LEGACY_KERAS='TRUE'", "TensorFlow reads only 1, true, True as on", "tensorflow 2.17.0"),
        ("Set it to 1", ("export TF_USE_LEGACY_KERAS=1",), "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/api_template.__init__.py"),
    ),
    "legacy-yes-on-tf215": (
        ("2.15.0", "2.15.0", "2.15.1", {"TF_USE_LEGACY_KERAS": "yes"}),
        ("tf-legacy-keras-value-ignored", Severity.WARNING, "TF_USE_LEGACY_KERAS='yes' is not read as on: tf.keras stays the keras package"),
        ("TF_USE_LEGACY_KERAS='yes'", "TensorFlow reads only 1, true, True as on", "tensorflow 2.15.0"),
        ("Set it to 1", ("export TF_USE_LEGACY_KERAS=1",), "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/api_template.__init__.py"),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_whole_finding(case):
    args, (rule_id, severity, title), evidence, (summary, commands, url) = CASES[case]
    f = only(machine(*args))
    assert (f.id, f.severity, f.section, f.title) == (rule_id, severity, Section.TENSORFLOW, title)
    assert len(f.evidence) == len(evidence)
    for line, want in zip(f.evidence, evidence):
        assert line.startswith(want[:-1]) if want.endswith("*") else line == want
    assert (f.fix.summary, f.fix.commands, f.fix.url) == (summary, commands, url)


@pytest.mark.parametrize("distribution", keras.TF_DISTRIBUTIONS)
def test_every_tensorflow_distribution_is_read(distribution):
    facts = Facts(host=Host(os="linux", python="3.11.9", env={}), python_packages={distribution: "2.13.1", "keras": "2.12.0"})
    assert only(facts).title.startswith("Keras 2.12.0 does not match TensorFlow 2.13.1")


def test_the_first_installed_distribution_is_the_tensorflow():
    facts = Facts(host=Host(os="linux", python="3.11.9", env={}),
                  python_packages={"tensorflow": None, "tensorflow-gpu": "2.13.1", "tensorflow-cpu": "2.12.0", "keras": "2.12.0"})
    assert only(facts).evidence[1] == "tensorflow 2.13.1"


@pytest.mark.parametrize("value", ["on", "y", "Yes", " true "])
def test_other_near_misses_of_the_legacy_switch(value):
    f = only(machine("2.17.0", "3.3.3", "2.17.0", {"TF_USE_LEGACY_KERAS": value}))
    assert f.id == "tf-legacy-keras-value-ignored"


@pytest.mark.parametrize("value", ["0", "false", "maybe", ""])
def test_values_that_say_off_are_not_near_misses(value):
    assert findings(machine("2.17.0", "3.3.3", "2.17.0", {"TF_USE_LEGACY_KERAS": value})) == []


def test_legacy_switch_read_as_on_is_not_a_near_miss():
    for value in ("1", "true", "True"):
        assert findings(machine("2.17.0", "3.3.3", "2.17.0", {"TF_USE_LEGACY_KERAS": value})) == []


def test_tf_keras_rules_need_a_tensorflow_that_reads_the_switch():
    # TensorFlow 2.14 has no tf-keras row: neither a wrong tf-keras nor the switch is judged
    assert findings(machine("2.14.0", "2.14.0", "2.16.0", {"TF_USE_LEGACY_KERAS": "TRUE"})) == []
    # a tf-keras of the same minor, any patch, is the right one
    assert findings(machine("2.17.0", "3.3.3", "2.17.1", {"TF_USE_LEGACY_KERAS": "1"})) == []


def test_unknown_keras_and_unknown_tf_keras_raise_nothing():
    assert findings(machine("2.16.1", UNSET, UNSET, {"TF_USE_LEGACY_KERAS": "1"})) == []  # tf-keras unknown: not "missing"
    assert findings(machine("2.4.1", "2.0.8")) == []  # a Keras the table does not place beside a bundling TF
    assert findings(machine("2.4.1", UNSET)) == []
    assert list(keras.tf_keras_missing(machine("2.16.1", "3.3.3", None, {"TF_USE_LEGACY_KERAS": "1"}), None)) == []
    assert list(keras.keras_standalone_tf_mismatch(machine("2.15.0", "2.2.5"), None)) == []


def test_multi_backend_keras_beside_tf26_plus_is_the_standalone_rule_only():
    found = findings(machine("2.13.1", "2.3.1"))
    assert [f.id for f in found] == ["keras-standalone-tf-mismatch"]
    assert MATRIX.keras is not None


def test_an_absurdly_long_version_is_not_judged_and_does_not_crash():
    """Found by tests/render/test_hostile_snapshots.py: int() refuses a 5000-digit string with ValueError."""
    assert findings(machine("2." + "1" * 5000, "2.2.5")) == []
    assert findings(machine("2.15.0", "2." + "1" * 5000)) == []


def test_the_running_tensorflow_wins_over_a_different_package_version():
    from gpudoctor.model import Frameworks, TensorflowBuild

    facts = Facts(host=Host(os="linux", env={}), python_packages={"tensorflow": "2.13.1", "keras": "2.15.0"},
                  frameworks=Frameworks(tensorflow=TensorflowBuild(version="2.15.0")))
    assert findings(facts) == []


def test_no_host_facts_is_no_environment_not_a_crash():
    f = only(Facts(python_packages={"tensorflow": "2.15.0", "keras": "3.3.3"}))
    assert f.id == "keras-tf-version-mismatch"
