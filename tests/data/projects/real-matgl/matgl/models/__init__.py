"""Graph neural network model implementations."""

from __future__ import annotations

from ._chgnet import CHGNet
from ._core import MatGLModel
from ._m3gnet import M3GNet
from ._megnet import MEGNet
from ._qet import QET
from ._so3net import SO3Net
from ._tensornet import TensorNet
from ._wrappers import TransformedTargetModel

__all__ = [
    "QET",
    "CHGNet",
    "M3GNet",
    "MEGNet",
    "MatGLModel",
    "SO3Net",
    "TensorNet",
    "TransformedTargetModel",
]
