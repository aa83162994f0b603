from .resnet import ResNet50
from .unet import UNet
from .ssd import SSD300