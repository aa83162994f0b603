from .ewald import tune_ewald
from .p3m import tune_p3m
from .pme import tune_pme

__all__ = ["tune_ewald", "tune_pme", "tune_p3m"]
