"""layers init"""
from . import (
    activation,
    conv_norm_act,
    drop_path,
    format,
    identity,
    patch_dropout,
    pooling,
    pos_embed,
    selective_kernel,
    squeeze_excite,
)
from .activation import *
from .conv_norm_act import *
from .drop_path import *
from .format import *
from .identity import *
from .patch_dropout import *
from .pooling import *
from .pos_embed import *
from .selective_kernel import *
from .squeeze_excite import *

__all__ = []
__all__.extend(activation.__all__)
