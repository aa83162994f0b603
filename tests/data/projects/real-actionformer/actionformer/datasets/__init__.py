from .data_utils import worker_init_reset_seed, truncate_feats
from .datasets import make_dataset, make_data_loader
from . import epic_kitchens, thumos14, anet, ego4d # other datasets go here

__all__ = ['worker_init_reset_seed', 'truncate_feats',
           'make_dataset', 'make_data_loader']
