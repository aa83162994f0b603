import torch
try:
  import cupy as cp
except ModuleNotFoundError:
  raise ModuleNotFoundError("cupy is not installed, please visit https://pypi.org/project/cupy/")

from . import container
from . import codec
from . import transform
from . import clustering
from . import kernels
# from . import experimental
from . import metric
from . import util
from . import legacy
from . import index
from . import fn

from .CustomModule import CustomModule
from ._version import __version__

topk = fn.Topk()
