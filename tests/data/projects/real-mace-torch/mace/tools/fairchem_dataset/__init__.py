from .lmdb_dataset_tools import AseDBDataset

__all__ = ["AseDBDataset"]
