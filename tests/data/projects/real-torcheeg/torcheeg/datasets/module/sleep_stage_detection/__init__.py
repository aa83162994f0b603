from .hmc import HMCDataset
from .isruc import ISRUCDataset
from .p2018 import P2018Dataset
from .sleep_edfx import SleepEDFxDataset