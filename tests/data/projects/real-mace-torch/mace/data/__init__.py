from .atomic_data import AtomicData
from .hdf5_dataset import HDF5Dataset, dataset_from_sharded_hdf5
from .lmdb_dataset import LMDBDataset
from .neighborhood import get_neighborhood
from .padding_tools import build_fake_padding_graph
from .utils import (
    Configuration,
    Configurations,
    KeySpecification,
    compute_average_E0s,
    config_from_atoms,
    config_from_atoms_list,
    estimate_e0s_from_foundation,
    load_from_xyz,
    random_train_valid_split,
    save_AtomicData_to_HDF5,
    save_configurations_as_HDF5,
    save_dataset_as_HDF5,
    test_config_types,
    update_keyspec_from_kwargs,
)

__all__ = [
    "get_neighborhood",
    "Configuration",
    "Configurations",
    "random_train_valid_split",
    "load_from_xyz",
    "test_config_types",
    "config_from_atoms",
    "config_from_atoms_list",
    "AtomicData",
    "compute_average_E0s",
    "estimate_e0s_from_foundation",
    "save_dataset_as_HDF5",
    "HDF5Dataset",
    "dataset_from_sharded_hdf5",
    "save_AtomicData_to_HDF5",
    "save_configurations_as_HDF5",
    "KeySpecification",
    "update_keyspec_from_kwargs",
    "LMDBDataset",
    "build_fake_padding_graph",
]
