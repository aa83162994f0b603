from torchmeta.modules.activation import MetaMultiheadAttention
from torchmeta.modules.batchnorm import MetaBatchNorm1d, MetaBatchNorm2d, MetaBatchNorm3d
from torchmeta.modules.container import MetaSequential
from torchmeta.modules.conv import MetaConv1d, MetaConv2d, MetaConv3d
from torchmeta.modules.linear import MetaLinear, MetaBilinear
from torchmeta.modules.module import MetaModule
from torchmeta.modules.normalization import MetaLayerNorm
from torchmeta.modules.parallel import DataParallel
from torchmeta.modules.sparse import MetaEmbedding, MetaEmbeddingBag

__all__ = [
    'MetaMultiheadAttention',
    'MetaBatchNorm1d', 'MetaBatchNorm2d', 'MetaBatchNorm3d',
    'MetaSequential',
    'MetaConv1d', 'MetaConv2d', 'MetaConv3d',
    'MetaLinear', 'MetaBilinear',
    'MetaModule',
    'MetaLayerNorm',
    'DataParallel',
    'MetaEmbedding', 'MetaEmbeddingBag',
]