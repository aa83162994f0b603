from .convolutional_network import ConvolutionalNetwork
from .double_conv import DoubleConv
