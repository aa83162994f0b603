from .onnx import HoverNetONNXWrapper, export_hovernet_onnx
from .hovernet import HoverNet

__all__ = ["HoverNetONNXWrapper", "export_hovernet_onnx", "HoverNet"]
