from .constant import SMILESDataset
from .hub import dataset_info, list_datasets, load_dataset
from .load_hf_dataset import (load_admet, load_broad6k, load_chembl2k, load_gasperm, load_qm9, load_toxcast,
                              load_zinc250k)  # deprecated aliases of load_dataset
from .split import subsample, train_test_split

__all__ = [
    "SMILESDataset",
    "list_datasets",
    "dataset_info",
    "load_dataset",
    "subsample",
    "train_test_split",
    "load_qm9",
    "load_chembl2k",
    "load_broad6k",
    "load_toxcast",
    "load_admet",
    "load_gasperm",
    "load_zinc250k",
]