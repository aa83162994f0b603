from .era5 import ERA5Dataset, create_data_loaders
from .datasets import StyleTransferDataset, WeatherDataset
from .webdataset_loader import create_webdataset_loader
from .streaming import StreamingERA5Dataset
from .sequence import MultiStepERA5Dataset

__all__ = [
    'ERA5Dataset',
    'WeatherDataset',
    'StyleTransferDataset',
    'create_data_loaders',
    'create_webdataset_loader',
    'StreamingERA5Dataset',
    'MultiStepERA5Dataset',
]
