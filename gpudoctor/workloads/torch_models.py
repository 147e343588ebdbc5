"""The PyTorch models (after shared/seeds: the Keras examples, in PyTorch) and the NHWC -> NCHW image conversion."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from gpudoctor.workloads import data, weights

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


class Cnn(nn.Module):
    """conv-pool-conv-pool-conv, flatten, dense, dense on 28x28x1 images, 10 classes."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 64, 3), nn.ReLU(),
        )  # fmt: skip
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(64 * 3 * 3, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x))


class Lstm(nn.Module):
    """embedding (1000 x 128), LSTM 128, dense over the vocabulary."""

    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.Embedding(data.VOCAB, 128)
        self.lstm = nn.LSTM(128, 128, batch_first=True)
        self.out = nn.Linear(128, data.VOCAB)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, (h, _) = self.lstm(self.embedding(x))
        return self.out(h[-1])


class Transfer(nn.Module):
    """A frozen ImageNet backbone (MobileNetV3-small's features) and a new head."""

    def __init__(self, backbone: nn.Module, classes: int) -> None:
        super().__init__()
        self.backbone = backbone
        self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(weights.TORCH_BACKBONE_FEATURES, classes)
        self.register_buffer("mean", torch.tensor(IMAGENET_MEAN).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(IMAGENET_STD).view(1, 3, 1, 1))
        self.frozen = False

    def freeze(self) -> None:
        """Frozen means frozen: no gradients, and BatchNorm keeps its statistics (the backbone stays in eval mode)."""
        self.frozen = True
        for p in self.backbone.parameters():
            p.requires_grad_(False)
        self.backbone.eval()

    def train(self, mode: bool = True) -> "Transfer":
        super().train(mode)
        if self.frozen:
            self.backbone.eval()
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.pool(self.backbone((x - self.mean) / self.std)))


def images(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))  # NHWC -> NCHW
