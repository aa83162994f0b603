from birder.adversarial.base import AttackResult
from birder.adversarial.deepfool import DeepFool
from birder.adversarial.fgsm import FGSM
from birder.adversarial.pgd import PGD
from birder.adversarial.simba import SimBA

__all__ = [
    "AttackResult",
    "DeepFool",
    "FGSM",
    "PGD",
    "SimBA",
]
