from .plot import apply_mask, prepare_mask
