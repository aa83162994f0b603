from .resnet import ResNetBackbone
from .unet import UNetBackbone