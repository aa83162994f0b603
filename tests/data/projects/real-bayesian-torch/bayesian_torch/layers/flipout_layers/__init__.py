from .conv_flipout import *
from .linear_flipout import *
from .rnn_flipout import *
from .quantized_linear_flipout import *
from .quantized_conv_flipout import *
# from .quantize_rnn_flipout import *