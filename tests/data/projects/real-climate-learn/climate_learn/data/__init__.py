from .download import *
from .itermodule import IterDataModule
from .mapmodule import ERA5toPRISMDataModule
from .climatebench_module import ClimateBenchDataModule
