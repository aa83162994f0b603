from .unet import UNet
from .resuvit import ResidualUViT
from .uvit import UViT
