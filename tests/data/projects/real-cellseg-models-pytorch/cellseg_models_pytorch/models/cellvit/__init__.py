from .cellvit import CellVit
from .onnx import CellVitONNXWrapper, export_cellvit_onnx

__all__ = ["CellVit", "CellVitONNXWrapper", "export_cellvit_onnx"]
