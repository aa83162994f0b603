from .linear_variational import *
from .conv_variational import *
from .rnn_variational import *
from .quantize_linear_variational import *
from .quantize_conv_variational import *
# from .quantize_rnn_variational import *