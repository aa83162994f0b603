from .layout import Layout, guess_image_layout
from .model_convert import (
    check_onnx_model,
    check_torch_model,
    check_trt_model,
    onnx_to_onnx_dynamic,
    onnx_to_trt,
    onnx_to_trt_dynamic_shape,
    onnx_to_trt_fixed_shape,
    torch_to_onnx,
)

__all__ = [
    # Layout utilities
    "Layout",
    "guess_image_layout",
    # Model conversion
    "check_onnx_model",
    "check_torch_model",
    "check_trt_model",
    "onnx_to_onnx_dynamic",
    "onnx_to_trt",
    "onnx_to_trt_dynamic_shape",
    "onnx_to_trt_fixed_shape",
    "torch_to_onnx",
]
