__version__ = "0.4.13"
from ._widget import SamWidget

__all__ = (
    "SamWidget"
)
