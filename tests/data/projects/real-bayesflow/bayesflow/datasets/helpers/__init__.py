from .augmentations import apply_augmentations
from .ensemble_sharing import ring_starts, ring_window_indices
