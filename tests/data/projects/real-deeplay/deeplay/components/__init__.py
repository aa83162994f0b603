from .mlp import MultiLayerPerceptron
from .cnn import *
from .rnn import *

# from .dcgan import *
from .gnn import *
from .dict import *
from .transformer import *
from .diffusion import *
