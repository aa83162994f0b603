from .cw import CWAttack
from .deepfool import DeepFool
from .fgsm import FGSM
from .lots import LOTS
from .pgd import PGD

__all__ = [
    "CWAttack",
    "DeepFool",
    "FGSM",
    "LOTS",
    "PGD",
]
