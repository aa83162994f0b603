"""Runtime adapters for exported GLiNER models."""

from .base import BaseRuntimeModel
from .onnx import ONNXRuntimeModel
from .openvino import OpenVINOModel

__all__ = ["BaseRuntimeModel", "ONNXRuntimeModel", "OpenVINOModel"]
