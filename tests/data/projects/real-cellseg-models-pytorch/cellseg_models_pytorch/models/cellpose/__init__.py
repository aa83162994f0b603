from .cellpose import CellPose
from .onnx import CellPoseONNXWrapper, export_cellpose_onnx

__all__ = ["CellPose", "CellPoseONNXWrapper", "export_cellpose_onnx"]
