__all__ = ["dataset_cylinder", "dataset_lorenz", "dataset_grayscott", "dataset_phys"]

from .data_utils import DataCollator
from .dataset_auto import AutoDataset
from . import dataset_cylinder
from . import dataset_lorenz
from . import dataset_grayscott
from .dataset_phys import PhysicalDataset