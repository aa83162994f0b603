from .gcn import GraphConvolutionalNeuralNetwork
from .normalization import *
