from joetorch.nn.modules import *
from joetorch.nn.mnist import *
from joetorch.nn.convmixer import *
from joetorch.nn.stable_diffusion import *

__all__ = ['MLP', 'EncBlock', 'DecBlock', 'ConvResidualBlock', 'convmixer', 'SelfAttention', 'CrossAttention','LargeEncoder', 'MediumEncoder', 'SmallEncoder', 'LargeDecoder', 'MediumDecoder', 'SmallDecoder', 'MNIST_MLP_Encoder', 'MNIST_MLP_Decoder', 'MNIST_CNN_Encoder', 'MNIST_CNN_Decoder', 'MNIST_AE']
