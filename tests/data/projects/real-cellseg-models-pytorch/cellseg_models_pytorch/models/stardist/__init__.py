from .stardist import StarDist
from .onnx import StarDistONNXWrapper, export_stardist_onnx

__all__ = ["StarDist", "StarDistONNXWrapper", "export_stardist_onnx"]
