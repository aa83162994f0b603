"""
Data processing
"""
from . import dataset_download, dataset_factory, loader, transforms_factory
from .auto_augment import *
from .constants import *
from .dataset_download import *
from .dataset_factory import *
from .loader import *
from .transforms_factory import *

__all__ = []
__all__.extend(dataset_download.__all__)
__all__.extend(dataset_factory.__all__)
__all__.extend(loader.__all__)
__all__.extend(transforms_factory.__all__)
