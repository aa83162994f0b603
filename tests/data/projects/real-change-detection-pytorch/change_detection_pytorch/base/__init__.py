from .model import SegmentationModel
from .decoder import Decoder

from .modules import (
    Conv2dReLU,
    Attention,
)

from .heads import (
    SegmentationHead,
    ClassificationHead,
)
