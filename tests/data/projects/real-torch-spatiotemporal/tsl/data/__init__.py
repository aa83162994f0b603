from .batch import DisjointBatch, StaticBatch, static_graph_collate
from .batch_map import BatchMap, BatchMapItem
from .data import Data
from .datamodule import *
from .imputation_dataset import ImputationDataset
from .spatiotemporal_dataset import SpatioTemporalDataset
from .synch_mode import HORIZON, STATIC, WINDOW, SynchMode

data_classes = ['Data', 'StaticBatch', 'DisjointBatch']
dataset_classes = ['SpatioTemporalDataset', 'ImputationDataset']

__all__ = [
    *data_classes,
    *dataset_classes,
    'SynchMode',
    'WINDOW',
    'HORIZON',
    'STATIC',
]
