"""Two line families from round 7's frozen part, read after its score: Keras 3's missing keras.src.engine, and
torchvision's "Couldn't load custom C++ ops" (an extension built for another torch)."""

from __future__ import annotations

from tests.checks.pasted import severities as _ids



def test_keras_3_has_no_keras_src_engine():
    # TensorSpeech/TensorFlowASR#297 (TensorFlow 2.18, Keras 3.9) and google-ai-edge/mediapipe#5229 (after upgrading)
    for text in ('    compile_utils = importlib.import_module(f"{KERAS_SRC}.engine.compile_utils")\n'
                 "ModuleNotFoundError: No module named 'keras.src.engine'\n",
                 "Describe the actual behavior\n\nModuleNotFoundError: No module named 'keras.src.engine'\n"):
        assert _ids(text).get("keras3-with-tf-keras-code") == "error"
    assert "keras3-with-tf-keras-code" not in _ids("ModuleNotFoundError: No module named 'keras.src'\n")  # a Keras before 2.13


def test_torchvision_that_cannot_load_its_ops_was_built_for_another_torch():
    # ultralytics/yolov5#5511 (torch upgraded under torchvision 0.11.1) and pytorch/pytorch#88852 (a nightly torch)
    line = ("RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are "
            "incompatible, or if you had errors while compiling torchvision from source.\n")
    assert _ids("The full error information is as follows:" + line).get("torch-extension-built-for-other-torch") == "error"
    assert _ids(line).get("torch-extension-built-for-other-torch") == "error"
