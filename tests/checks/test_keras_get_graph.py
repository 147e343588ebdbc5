"""Standalone Keras 2.3 calls tf.keras.backend.get_graph(), which an older TensorFlow 1.x lacks: the Keras needs a newer
TensorFlow (keras-standalone-tf-mismatch, a [[finding]] of signatures.toml)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix


def _finding(text: str):
    found = [f for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings if f.id == "keras-standalone-tf-mismatch"]
    return found[0] if found else None


def test_emopy_s_get_graph_error():
    # thoughtworksarts/EmoPy#49
    f = _finding("AttributeError: module 'tensorflow.python.keras.backend' has no attribute 'get_graph'\n")
    assert f is not None and f.severity.label == "error" and "keras<2.4" in f.fix.commands[0]


def test_the_same_class_in_another_thread_keras_bert_importing_keras():
    # xuxping/finetune_bert#1: the same line at the end of keras' own import
    text = ('  File "/home/x/anaconda3/envs/py35/lib/python3.5/site-packages/keras/utils/conv_utils.py", line 9, in <module>\n'
            "    from .. import backend as K\n"
            "AttributeError: module 'tensorflow.python.keras.backend' has no attribute 'get_graph'\n")
    assert _finding(text) is not None
    assert _finding("AttributeError: module 'tensorflow' has no attribute 'get_default_graph'\n") is None


def test_a_keras_newer_than_tensorflow_cannot_import_get_config():
    # karaage0703/karaage-ai-book#37 (Colab's keras beside tensorflow-gpu 1.15.2) and strvcom/strv-ml-mask2face#2
    def mismatch(text):
        return [f for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings if f.id == "keras-tf-version-mismatch"]

    colab = ("ImportError: cannot import name 'get_config' from 'tensorflow.python.eager.context' "
             "(/usr/local/lib/python3.7/dist-packages/tensorflow_core/python/eager/context.py)\n")
    windows = ("ImportError: cannot import name 'get_config' from 'tensorflow.python.eager.context' "
               "(C:\\Users\\A\\anaconda3\\envs\\mask2face\\lib\\site-packages\\tensorflow\\python\\eager\\context.py)\n")
    for text in (colab, windows):
        (f,) = mismatch(text)
        assert f.severity.label == "error" and "newer than the TensorFlow" in f.title
