"""This module is highly inspired by both torchvison and pathml"""

from .compose import TissueDetectionHE
from .mods import (
    ArtifactFilterThreshold,
    BinaryThreshold,
    BoxBlur,
    Compose,
    EntropyThreshold,
    GaussianBlur,
    MedianBlur,
    MorphClose,
    MorphOpen,
)

__all__ = [
    "ArtifactFilterThreshold",
    "BinaryThreshold",
    "BoxBlur",
    "Compose",
    "EntropyThreshold",
    "GaussianBlur",
    "MedianBlur",
    "MorphClose",
    "MorphOpen",
    "TissueDetectionHE",
]
