from .kno import KNO1d,KNO2d
from .kno import encoder_mlp, decoder_mlp, encoder_conv1d, decoder_conv1d, encoder_conv2d, decoder_conv2d
from .koopmanViT import ViT