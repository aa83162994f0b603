"""Export utilities: ONNX, ONNX quantization, TorchScript."""

from fujicv.export.onnx import quantize_onnx, to_onnx, verify_onnx
from fujicv.export.quantization import measure_model_size, quantize_dynamic, quantize_static
from fujicv.export.torchscript import export_torchscript, load_torchscript, verify_torchscript

__all__ = [
    "to_onnx",
    "verify_onnx",
    "quantize_onnx",
    "quantize_dynamic",
    "quantize_static",
    "measure_model_size",
    "export_torchscript",
    "verify_torchscript",
    "load_torchscript",
]
