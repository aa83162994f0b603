__all__ = ["data","model"]

from . import data
from . import model
from . import func
from .model import koopman, koopman_vit
from .models import KNO1d,KNO2d
from .models import encoder_mlp, decoder_mlp, encoder_conv1d, decoder_conv1d, encoder_conv2d, decoder_conv2d
from .models import ViT
