# Copyright (C) 2024 Apple Inc. All Rights Reserved.
from cut_cross_entropy.linear_cross_entropy import (
    LinearCrossEntropy,
    LinearCrossEntropyImpl,
    linear_cross_entropy,
)

__all__ = [
    "LinearCrossEntropy",
    "LinearCrossEntropyImpl",
    "linear_cross_entropy",
]


__version__ = "25.1.1"
