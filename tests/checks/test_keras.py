"""Keras beside TensorFlow (issue 10): each mismatch raises exactly its finding with evidence and the exact pip fix;
healthy pairings of every era raise nothing; unknown facts raise nothing."""

from __future__ import annotations

import pytest

from gpudoctor.checks import keras, run_checks
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Facts, Host, Severity, TensorflowBuild, Frameworks

MATRIX = load_matrix()
UNSET = object()


def machine(tf: str, keras_version=UNSET, tf_keras=UNSET, env: dict[str, str] | None = None) -> Facts:
    """A probed machine: tracked packages are present or None (absent); UNSET leaves a package unknown."""
    packages: dict[str, str | None] = {"tensorflow": tf}
    if keras_version is not UNSET:
        packages["keras"] = keras_version
    if tf_keras is not UNSET:
        packages["tf-keras"] = tf_keras
    return Facts(host=Host(os="linux", python="3.11.9", env={} if env is None else env), python_packages=packages)


def findings(facts: Facts):
    return [f for check in keras.CHECKS for f in check(facts, MATRIX)]


def only(facts: Facts):
    found = findings(facts)
    assert len(found) == 1, [f.id for f in found]
    return found[0]


@pytest.mark.parametrize(
    ("tf", "keras_version", "tf_keras", "env"),
    [
        ("1.14.0", "2.2.5", UNSET, None),  # multi-backend 2.2: TensorFlow 1
        ("1.15.0", "2.3.1", UNSET, None),  # multi-backend 2.3: 1.13 to 2.0
        ("2.0.0", "2.3.1", UNSET, None),
        ("2.3.1", None, UNSET, None),  # tf.keras inside TensorFlow, no keras package
        ("2.4.1", "2.4.3", UNSET, None),  # the 2.4 redirect needs TensorFlow >= 2.2
        ("2.6.2", "2.6.0", UNSET, None),
        ("2.13.1", "2.13.1", UNSET, None),
        ("2.15.0", "2.15.0", "2.15.1", None),
        ("2.15.1", "2.15.0", "2.15.1", {"TF_USE_LEGACY_KERAS": "1"}),
        ("2.16.1", "3.3.3", None, None),
        ("2.16.1", "3.3.3", "2.16.0", {"TF_USE_LEGACY_KERAS": "1"}),
        ("2.18.0", "3.5.0", "2.18.0", {"TF_USE_LEGACY_KERAS": "true"}),
        ("2.21.0", "3.15.1", None, None),
        ("2.7.0", "2.7.0rc0", UNSET, None),  # the wheel admits its own pre-release
    ],
)
def test_healthy_pairings_raise_nothing(tf, keras_version, tf_keras, env):
    assert findings(machine(tf, keras_version, tf_keras, env)) == []


def test_keras3_beside_tf215_is_a_warning_with_the_215_pin():
    f = only(machine("2.15.0", "3.3.3"))
    assert (f.id, f.severity) == ("keras-tf-version-mismatch", Severity.WARNING)
    assert f.fix.commands == ("pip install 'keras==2.15.*'",)
    assert "the tensorflow 2.15.0 wheel requires keras>=2.15.0,<2.16" in f.evidence
    assert any("keras.io" in line for line in f.evidence)


def test_keras3_beside_tf214_is_an_error():
    f = only(machine("2.14.0", "3.0.0"))
    assert (f.id, f.severity, f.fix.commands) == ("keras-tf-version-mismatch", Severity.ERROR, ("pip install 'keras==2.14.*'",))


def test_keras_minor_must_match_tf_minor_from_26_to_215():
    f = only(machine("2.13.1", "2.12.0"))
    assert (f.id, f.severity) == ("keras-tf-version-mismatch", Severity.ERROR)
    assert f.evidence[:2] == ("keras 2.12.0", "tensorflow 2.13.1")
    assert f.fix.commands == ("pip install 'keras==2.13.*'",)


def test_keras2_beside_tf216_offers_keras3_and_tf_keras():
    f = only(machine("2.16.1", "2.15.0"))
    assert (f.id, f.severity) == ("keras-tf-version-mismatch", Severity.ERROR)
    assert f.fix.commands == ("pip install 'keras>=3.0.0' 'tf-keras==2.16.*'",
                              "export TF_USE_LEGACY_KERAS=1   # only for Keras 2 code: tf.keras is then tf-keras")


def test_keras3_older_than_the_tf_declares_is_a_warning():
    f = only(machine("2.18.0", "3.3.3"))
    assert (f.id, f.severity, f.fix.commands) == ("keras-tf-version-mismatch", Severity.WARNING, ("pip install 'keras>=3.5.0'",))


def test_keras_missing_beside_tf26_plus_only_when_probed_absent():
    f = only(machine("2.15.0", None))
    assert (f.id, f.severity, f.fix.commands) == ("keras-tf-version-mismatch", Severity.ERROR, ("pip install 'keras==2.15.*'",))
    assert findings(machine("2.15.0")) == []  # keras unknown (a pasted list without it): not judged


def test_keras_for_a_newer_tf_beside_a_bundled_tf():
    f = only(machine("2.4.1", "2.15.0"))
    assert (f.id, f.severity) == ("keras-tf-version-mismatch", Severity.ERROR)
    assert f.fix.commands[0].startswith("pip uninstall -y keras")
    assert f.fix.commands[1].startswith("pip install 'keras==2.4.*'")


def test_multi_backend_225_beside_tf2():
    f = only(machine("2.15.0", "2.2.5"))
    assert (f.id, f.severity) == ("keras-standalone-tf-mismatch", Severity.ERROR)
    assert f.title == "multi-backend Keras 2.2.5 does not support TensorFlow 2.15.0"
    assert "keras 2.2.x supports tensorflow <2.0" in f.evidence
    assert f.fix.commands == ("pip install 'keras==2.15.*'",)
    assert f.fix.url == "https://github.com/keras-team/keras/releases/tag/2.2.5"


def test_multi_backend_231_beside_tf22_offers_tf_keras_or_the_redirect():
    f = only(machine("2.2.0", "2.3.1"))
    assert f.id == "keras-standalone-tf-mismatch"
    assert f.fix.commands[0].startswith("pip uninstall -y keras")
    assert f.fix.commands[1].startswith("pip install 'keras==2.4.*'")


def test_the_24_redirect_beside_tf1_offers_23():
    f = only(machine("1.15.0", "2.4.3"))
    assert f.title == "Keras 2.4.3 (a redirect to tf.keras) does not support TensorFlow 1.15.0"
    assert f.fix.commands[1].startswith("pip install 'keras==2.3.*'")


def test_multi_backend_beside_a_tf_newer_than_the_table():
    f = only(machine("2.99.0", "2.2.5"))
    assert f.fix.commands == ("pip uninstall -y keras", "pip install 'tensorflow==2.99.0'   # reinstalls the keras it declares")


def test_tf_keras_missing_when_legacy_is_on():
    f = only(machine("2.16.1", "3.3.3", None, {"TF_USE_LEGACY_KERAS": "1"}))
    assert (f.id, f.severity, f.fix.commands) == ("tf-keras-missing", Severity.ERROR, ("pip install 'tf-keras==2.16.*'",))
    assert "TF_USE_LEGACY_KERAS='1'" in f.evidence
    # the variable unset, or the environment unknown (a pasted report): nothing to say
    assert findings(machine("2.16.1", "3.3.3", None, {})) == []
    unknown_env = Facts(host=Host(os="linux"), python_packages={"tensorflow": "2.16.1", "keras": "3.3.3", "tf-keras": None})
    assert findings(unknown_env) == []
    # TensorFlow 2.14 does not read the variable
    assert findings(machine("2.14.0", "2.14.0", None, {"TF_USE_LEGACY_KERAS": "1"})) == []


def test_tf_keras_mismatch_is_an_error_only_when_tf_keras_is_used():
    on = only(machine("2.17.0", "3.3.3", "2.16.0", {"TF_USE_LEGACY_KERAS": "1"}))
    assert (on.id, on.severity, on.fix.commands) == ("tf-keras-version-mismatch", Severity.ERROR, ("pip install 'tf-keras==2.17.*'",))
    off = only(machine("2.17.0", "3.3.3", "2.16.0", {}))
    assert (off.id, off.severity) == ("tf-keras-version-mismatch", Severity.WARNING)


@pytest.mark.parametrize("value", ["TRUE", "yes", " 1"])
def test_legacy_value_tensorflow_does_not_read(value):
    f = only(machine("2.17.0", "3.3.3", "2.17.0", {"TF_USE_LEGACY_KERAS": value}))
    assert (f.id, f.severity, f.fix.commands) == ("tf-legacy-keras-value-ignored", Severity.WARNING, ("export TF_USE_LEGACY_KERAS=1",))
    assert findings(machine("2.17.0", "3.3.3", "2.17.0", {"TF_USE_LEGACY_KERAS": "0"})) == []


def test_framework_version_wins_over_the_package_list():
    facts = Facts(host=Host(os="linux", env={}), python_packages={"tensorflow-cpu": "2.15.0", "keras": "2.15.0"},
                  frameworks=Frameworks(tensorflow=TensorflowBuild(version="2.15.0")))
    assert findings(facts) == []
    cpu_only = Facts(host=Host(os="linux", env={}), python_packages={"tensorflow-cpu": "2.16.1", "keras": "2.15.0"})
    assert only(cpu_only).id == "keras-tf-version-mismatch"


def test_unknown_or_unreadable_versions_raise_nothing():
    assert findings(machine("2.15.0", "not-a-version")) == []
    assert findings(Facts(python_packages={"keras": "3.3.3"})) == []  # no TensorFlow
    assert findings(machine("2.15.0", "3.3.3").__class__()) == []
    assert list(keras.keras_tf_version_mismatch(machine("2.15.0", "3.3.3"), None)) == []  # no matrix


def test_registered_and_in_the_tensorflow_section():
    report = run_checks(machine("2.15.0", "2.2.5"), MATRIX)
    f = next(f for f in report.findings if f.id == "keras-standalone-tf-mismatch")
    assert f.section.name == "TENSORFLOW"
