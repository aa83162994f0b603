from .dataset import Dataset
from .datetime_dataset import DatetimeDataset
from .tabular_dataset import TabularDataset

__all__ = [
    'Dataset',
    'TabularDataset',
    'DatetimeDataset',
]

classes = __all__
