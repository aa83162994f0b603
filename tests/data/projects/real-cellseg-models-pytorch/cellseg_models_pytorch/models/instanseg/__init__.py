from .onnx import InstanSegONNXWrapper, export_instanseg_onnx
from .instanseg import InstanSeg
from .instanseg_unet import InstanSegUnet, instanseg_nuclei
from .probability_net import ProbabilityNet

__all__ = [
    "InstanSegONNXWrapper",
    "export_instanseg_onnx",
    "InstanSeg",
    "InstanSegUnet",
    "instanseg_nuclei",
    "ProbabilityNet",
]
