from torch_geometric_temporal.nn import *
from torch_geometric_temporal.dataset import *
from torch_geometric_temporal.signal import *

__version__ = "0.54.0"

__all__ = [
    "torch_geometric",
    "__version__",
]
