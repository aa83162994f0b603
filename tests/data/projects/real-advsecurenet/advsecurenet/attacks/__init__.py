from advsecurenet.attacks.base.adversarial_attack import AdversarialAttack
from advsecurenet.attacks.decision_based.boundary import DecisionBoundary
from advsecurenet.attacks.gradient_based.cw import CWAttack
from advsecurenet.attacks.gradient_based.deepfool import DeepFool
from advsecurenet.attacks.gradient_based.fgsm import FGSM
from advsecurenet.attacks.gradient_based.lots import LOTS
from advsecurenet.attacks.gradient_based.pgd import PGD

__all__ = [
    "AdversarialAttack",
    "CWAttack",
    "FGSM",
    "PGD",
    "LOTS",
    "DeepFool",
    "DecisionBoundary",
]
