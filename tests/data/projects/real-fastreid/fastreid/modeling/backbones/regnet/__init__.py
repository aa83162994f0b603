

from .regnet import build_regnet_backbone
from .effnet import build_effnet_backbone
