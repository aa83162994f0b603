from pytorch_pfn_extras.nn import parallel  # NOQA
from pytorch_pfn_extras.nn.modules.ensure_shape import Ensure, ensure  # NOQA
from pytorch_pfn_extras.nn.modules.extended_sequential import (  # NOQA
    ExtendedSequential,
)
from pytorch_pfn_extras.nn.modules.lazy_batchnorm import LazyBatchNorm1d  # NOQA
from pytorch_pfn_extras.nn.modules.lazy_batchnorm import LazyBatchNorm2d  # NOQA
from pytorch_pfn_extras.nn.modules.lazy_batchnorm import LazyBatchNorm3d  # NOQA
from pytorch_pfn_extras.nn.modules.lazy_conv import LazyConv1d  # NOQA
from pytorch_pfn_extras.nn.modules.lazy_conv import LazyConv2d  # NOQA
from pytorch_pfn_extras.nn.modules.lazy_conv import LazyConv3d  # NOQA
from pytorch_pfn_extras.nn.modules.lazy_linear import LazyLinear  # NOQA
