from .deeplabv3 import DeepLabV3, DeepLabV3Plus
from .fpn import FPN
from .linknet import Linknet
from .manet import MAnet
from .pan import PAN
from .pspnet import PSPNet
from .unet import Unet
from .unetplusplus import UnetPlusPlus

__all__ = (
    "DeepLabV3",
    "DeepLabV3Plus",
    "FPN",
    "Linknet",
    "MAnet",
    "PAN",
    "PSPNet",
    "Unet",
    "UnetPlusPlus",
)
