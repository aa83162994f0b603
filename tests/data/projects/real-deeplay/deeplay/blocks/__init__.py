from .block import Block
from .la import LayerActivation
from .lan import LayerActivationNormalization
from .plan import PoolLayerActivationNormalization
from .land import LayerActivationNormalizationDropout
from .recurrentblock import RecurrentBlock
from .lanu import LayerActivationNormalizationUpsample
from .residual import BaseResidual, Conv2dResidual
from .conv import Conv2dBlock
from .linear import LinearBlock
from .ls import LayerSkip

# from .conv2d import
