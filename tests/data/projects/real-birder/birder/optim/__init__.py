from birder.optim.lamb import Lamb
from birder.optim.lars import Lars

__all__ = [
    "Lamb",
    "Lars",
]
