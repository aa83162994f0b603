from .backbones import SwinBackbone, ResnetBackbone, AggregationBackbone
from .fpn import FPN, Upsample
from .heads import SimpleHead, FRCNNHead
