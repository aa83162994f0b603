from .basic_dataset import BasicDataset
from .basic_dataset import RawDataset
from .crosslingual_dataset import CrosslingualDataset
from .dynamic_dataset import DynamicDataset

from .download import download_dataset
