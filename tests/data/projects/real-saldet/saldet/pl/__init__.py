from .data import SaliencyPLDataModule
from .model import SaliencyPLModel
