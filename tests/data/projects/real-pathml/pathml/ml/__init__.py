"""
Copyright 2021, Dana-Farber Cancer Institute and Weill Cornell Medicine
License: GNU GPL 2.0
"""

from .dataset import TileDataset
from .layers import GNNLayer
from .models.hactnet import HACTNet
from .models.hovernet import HoVerNet, loss_hovernet, post_process_batch_hovernet
