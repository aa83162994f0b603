from cli.shared.types.attack.attacks.cw import CwAttackCLIConfigType
from cli.shared.types.attack.attacks.decision_boundary import (
    DecisionBoundaryAttackCLIConfigType,
)
from cli.shared.types.attack.attacks.deepfool import DeepFoolAttackCLIConfigType
from cli.shared.types.attack.attacks.fgsm import FgsmAttackCLIConfigType
from cli.shared.types.attack.attacks.lots import LotsAttackCLIConfigType
from cli.shared.types.attack.attacks.pgd import PgdAttackCLIConfigType

__all__ = [
    "FgsmAttackCLIConfigType",
    "PgdAttackCLIConfigType",
    "DeepFoolAttackCLIConfigType",
    "DecisionBoundaryAttackCLIConfigType",
    "CwAttackCLIConfigType",
    "LotsAttackCLIConfigType",
]
