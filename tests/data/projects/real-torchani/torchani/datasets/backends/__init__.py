from torchani.datasets.backends.public import Store, create_store
from torchani.datasets.backends.interface import _ConformerWrapper

__all__ = ["Store", "create_store", "_ConformerWrapper"]
