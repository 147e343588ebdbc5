"""The labels of the issue forms and typed lists that evidence/readers/issue_form.py reads, and what each label's
answer states: data, kept apart from the reader that walks a text for them."""

from __future__ import annotations

# Label (lower case, without "(e.g., ...)" and markup) -> which fact its answer states.
_LABELS = {
    "os platform and distribution": "os", "os platform": "os", "os": "os", "operating system": "os", "os version": "os",
    "platform": "os", "linux distro/architecture": "os", "environment location": "os", "os/platform": "os",
    "operating system and version": "os", "os and version": "os", "distribution": "os",
    "what operating system are you using?": "os",  # Fooocus's and A1111-style bug forms
    "python version": "python", "python": "python",
    "cuda/cudnn version": "cuda/cudnn", "cuda/cudnn": "cuda/cudnn", "cuda / cudnn version": "cuda/cudnn",
    "cuda and cudnn version": "cuda/cudnn", "cuda version": "cuda", "cuda": "cuda", "cuda toolkit version": "cuda",
    "cuda toolkit": "cuda", "cudnn version": "cudnn", "cudnn": "cudnn",
    "gpu model and memory": "gpu", "gpu models and configuration": "gpu", "gpu model": "gpu", "gpu": "gpu",
    "gpu model/driver": "gpu", "gpu models": "gpu", "graphics card": "gpu", "gpu type": "gpu", "hardware": "gpu",
    "nvidia driver version": "driver", "driver version": "driver", "gpu driver version": "driver", "nvidia driver": "driver",
    "pytorch version": "torch", "pytorch": "torch", "torch version": "torch", "torch": "torch",
    "tensorflow version": "tensorflow", "tensorflow": "tensorflow", "tf version": "tensorflow",
    "tensorflow installed from (source or binary)": "tf-installed-from", "tensorflow installed from": "tf-installed-from",
    "mobile device": "device",  # TensorFlow's template: where a Jetson is named
    # the same labels in Chinese, as the issues of PaddlePaddle, Jittor and many Chinese projects' users write them
    "cuda版本": "cuda", "cuda 版本": "cuda", "驱动版本": "driver", "显卡驱动版本": "driver", "nvidia驱动版本": "driver",
    "cudnn版本": "cudnn", "python版本": "python", "pytorch版本": "torch", "torch版本": "torch", "tensorflow版本": "tensorflow",
    "显卡": "gpu", "显卡型号": "gpu", "gpu型号": "gpu", "操作系统": "os", "系统版本": "os",
}
# Labels only issue templates use: a text with one of them is a filled-in template, and its plain "Label: value"
# lines count too (elsewhere a bare "OS: ..." line is too common to mean anything).
_DISTINCTIVE = {"os platform and distribution", "gpu model and memory", "cuda/cudnn version", "linux distro/architecture",
                "environment location", "gpu model/driver"}
# The examples cuML's and ethminer's templates put in brackets: left in place, they are not answers.
_TEMPLATE_EXAMPLES = {"bare-metal, docker, cloud(specify cloud provider)", "ubuntu 16.04 amd64", "v100 and driver 396.44",
                      "conda, docker, or from source", "9.2"}

# Facts a person lists as "Label: version" lines: two or more of them on adjacent lines are a typed list of versions
# ("tensorflow version: 1.5.0" / "CUDA: 9.0" / "Driver Version: 384.69") even outside an issue template.
_VERSION_FACTS = {"python", "cuda", "cudnn", "cuda/cudnn", "driver", "torch", "tensorflow"}
