from .optimizer import SDNQOptimizer
from .adafactor import Adafactor
from .adamw import AdamW
from .came import CAME
from .lion import Lion
from .muon import Muon


__all__ = [
    "SDNQOptimizer",
    "Adafactor",
    "AdamW",
    "CAME",
    "Lion",
    "Muon",
]
