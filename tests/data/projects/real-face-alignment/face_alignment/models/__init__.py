from .fan import FAN
from .resnet import ResNetDepth