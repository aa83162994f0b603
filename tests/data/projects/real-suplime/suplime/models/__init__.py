from .embedding import WeSpeakerSimAMResNet34
from .segmentation import SuplimeSegmentation

__all__ = ["SuplimeSegmentation", "WeSpeakerSimAMResNet34"]
