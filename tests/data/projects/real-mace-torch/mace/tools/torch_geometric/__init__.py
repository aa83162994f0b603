from .batch import Batch
from .data import Data
from .dataloader import DataLoader
from .dataset import Dataset
from .seed import seed_everything

__all__ = ["Batch", "Data", "Dataset", "DataLoader", "seed_everything"]
