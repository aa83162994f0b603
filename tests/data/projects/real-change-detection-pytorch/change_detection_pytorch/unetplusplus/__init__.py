from .model import UnetPlusPlus
