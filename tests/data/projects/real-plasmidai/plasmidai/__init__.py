from . import data
from . import datasets
from . import experimental

__all__ = ["data", "datasets", "experimental"]