# ruff: noqa: F401

from .auto import AutoModel, AutoProcessor
from .birefnet.image_processing_birefnet import BiRefNetImageProcessor
from .birefnet.modeling_birefnet import BiRefNet
from .mixin import OnnxModel
from .sam3.image_processing_sam3 import Sam3Processor
from .sam3.modeling_sam3 import Sam3

__version__ = "0.3.1"
