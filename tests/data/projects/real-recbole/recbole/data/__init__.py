from recbole.data.utils import *

__all__ = [
    "create_dataset",
    "data_preparation",
    "save_split_dataloaders",
    "load_split_dataloaders",
]
