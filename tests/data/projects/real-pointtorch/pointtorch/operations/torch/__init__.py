"""
Point cloud processing operations for the use with
`PyTorch tensors <https://pytorch.org/docs/stable/tensors.html#torch.Tensor>`__.
"""

from ._pack_batch import *
from ._knn_search import *
from ._majority_voting import *
from ._make_labels_consecutive import *
from ._max_pooling import *
from ._neighbor_search import *
from ._radius_search import *
from ._random_sampling import *
from ._ravel_index import *
from ._shuffle import *
from ._voxel_downsampling import *

__all__ = [name for name in globals().keys() if not name.startswith("_")]
