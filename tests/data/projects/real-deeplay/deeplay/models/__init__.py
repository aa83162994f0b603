from .recurrentmodel import RecurrentModel
from .gnn import *
from .visiontransformer import ViT
from .backbones import *
from .mlp import *
from .generators import *
from .discriminators import *
