from .modules.activation import HReLU
from .modules.batchnorm import HBatchNorm, HBatchNorm2d
from .modules.change_manifold import ChangeManifold
from .modules.container import TangentSequential
from .modules.convolution import HConvolution2d
from .modules.embedding import HEmbedding
from .modules.flatten import HFlatten
from .modules.linear import HLinear
from .modules.pooling import HAvgPool2d, HMaxPool2d
