# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.
from .base_datasets import AtomicDataset
from .lmdb_dataset import NequIPLMDBDataset
from .ase_dataset import ASEDataset
from .npz_dataset import NPZDataset
from .hdf5_dataset import HDF5Dataset
from .test_data import EMTTestDataset, LMDBTestDataset
from .utils import SubsetByRandomSlice, RandomSplitAndIndexDataset


__all__ = [
    "AtomicDataset",
    "NequIPLMDBDataset",
    "ASEDataset",
    "NPZDataset",
    "HDF5Dataset",
    "EMTTestDataset",
    "SubsetByRandomSlice",
    "RandomSplitAndIndexDataset",
    "LMDBTestDataset",
]
