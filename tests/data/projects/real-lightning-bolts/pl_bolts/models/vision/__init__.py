from pl_bolts.models.vision.image_gpt.gpt2 import GPT2
from pl_bolts.models.vision.image_gpt.igpt_module import ImageGPT
from pl_bolts.models.vision.pixel_cnn import PixelCNN
from pl_bolts.models.vision.segmentation import SemSegment
from pl_bolts.models.vision.unet import UNet

__all__ = [
    "GPT2",
    "ImageGPT",
    "PixelCNN",
    "SemSegment",
    "UNet",
]
