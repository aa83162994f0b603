from .cnn import ConvolutionalNeuralNetwork
from .encdec import (
    ConvolutionalEncoder2d,
    ConvolutionalDecoder2d,
    UNet2d,
    ConvolutionalEncoderDecoder2d,
)
