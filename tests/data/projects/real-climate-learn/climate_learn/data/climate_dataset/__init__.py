from .args import ClimateDatasetArgs, ERA5Args, StackedClimateDatasetArgs
from .climate_dataset import ClimateDataset
from .era5 import ERA5
from .era5_iterdataset import *
from .stacked_climate_dataset import StackedClimateDataset
