from .collate import collate_fn as collate_fn, pad_tensors as pad_tensors

from .representations import (
    seq_to_spatial as seq_to_spatial,
    spatial_to_seq as spatial_to_seq,
)
