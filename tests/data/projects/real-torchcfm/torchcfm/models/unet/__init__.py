from .unet import UNetModelWrapper as UNetModel
