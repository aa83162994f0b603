from .dataset import HarmonixDataset
from .datamodule import HarmonixDataModule
