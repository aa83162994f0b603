from .ft_transformer import FTTransformer
from .mambatab import MambaTab
from .mambattn import MambAttention
from .mambular import Mambular
from .mlp import MLP
from .ndtf import NDTF
from .node import NODE
from .resnet import ResNet
from .saint import SAINT
from .tabm import TabM
from .tabtransformer import TabTransformer
from .tabularnn import TabulaRNN
from .autoint import AutoInt
from .trompt import Trompt
from .enode import ENODE
from .tangos import Tangos
from .modern_nca import ModernNCA

__all__ = [
    "ModernNCA",
    "Tangos",
    "ENODE",
    "Trompt",
    "AutoInt",
    "MLP",
    "NDTF",
    "NODE",
    "SAINT",
    "FTTransformer",
    "MambAttention",
    "MambaTab",
    "Mambular",
    "ResNet",
    "TabM",
    "TabTransformer",
    "TabulaRNN",
]
