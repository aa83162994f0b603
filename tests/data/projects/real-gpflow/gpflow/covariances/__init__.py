from . import kufs, kuus, multioutput
from .dispatch import Kuf, Kuu

__all__ = [
    "Kuf",
    "Kuu",
    "dispatch",
    "kufs",
    "kuus",
    "multioutput",
]
