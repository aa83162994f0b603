"""Export utilities for sleap-nn."""

from sleap_nn.export.exporters import export_model, export_to_onnx, export_to_tensorrt
from sleap_nn.export.metadata import ExportMetadata
from sleap_nn.export.utils import build_bottomup_candidate_template

__all__ = [
    "export_model",
    "export_to_onnx",
    "export_to_tensorrt",
    "ExportMetadata",
    "build_bottomup_candidate_template",
]
