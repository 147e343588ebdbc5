# Dockerfile: written by gpudoctor 0.1.0 (gpudoctor env --framework torch --gpu 'RTX 4090' --driver 550.54.15)
# Target machine: RTX 4090 (CC 8.9), NVIDIA driver 550.54.15, Linux x86_64
# Installs: torch 2.14.1 (cu126 wheels, CUDA 12.6), Python 3.13
# Wheel index: https://download.pytorch.org/whl/cu126
# Why:
#   - Python 3.13: torch 2.14.1 has wheels for Python 3.10–3.14
#   - driver 550.54.15 supports CUDA 12.4 -> torch 2.14.1+cu126 (CUDA 12.6, minor-version compatibility within 12.x, driver >= 525.60.13)
#   - compute capability 8.9 -> torch 2.14.1+cu126 has native code (SASS) for it (sm_86)
#   - skipped: torch 2.15.0+cu130 needs CUDA 13.0: driver >= 580.65.06; driver 550.54.15 is older
#   - skipped: torch 2.15.0+cu132 needs CUDA 13.2: driver >= 580.65.06; driver 550.54.15 is older
# Notes:
#   - CUDA 12.6 runs on this driver through minor-version compatibility (limited feature set); the full feature set needs driver >= 560.28.03
#
# The host needs the NVIDIA driver and the NVIDIA Container Toolkit (nvidia-container-toolkit), which gives the
# container the driver's libraries: https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html
# The CUDA libraries themselves come from the pip wheels, so a slim Python image is enough.
#   docker build -t torch-2.14.1-cu126 .
#   docker run --gpus all --rm -it torch-2.14.1-cu126
FROM python:3.13-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
ENV NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility

RUN python -m pip install --index-url https://download.pytorch.org/whl/cu126 \
        torch==2.14.1 \
        torchvision==0.29.1

WORKDIR /workspace
CMD ["python", "-c", "import torch; print('torch', torch.__version__, 'CUDA available:', torch.cuda.is_available())"]
