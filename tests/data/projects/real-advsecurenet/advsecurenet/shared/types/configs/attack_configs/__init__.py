from advsecurenet.shared.types.configs.attack_configs.cw_attack_config import (
    CWAttackConfig,
)
from advsecurenet.shared.types.configs.attack_configs.decision_boundary_attack_config import (
    DecisionBoundaryAttackConfig,
)
from advsecurenet.shared.types.configs.attack_configs.deepfool_attack_config import (
    DeepFoolAttackConfig,
)
from advsecurenet.shared.types.configs.attack_configs.fgsm_attack_config import (
    FgsmAttackConfig,
)
from advsecurenet.shared.types.configs.attack_configs.lots_attack_config import (
    LotsAttackConfig,
    LotsAttackMode,
)
from advsecurenet.shared.types.configs.attack_configs.pgd_attack_config import (
    PgdAttackConfig,
)

__all__ = [
    "CWAttackConfig",
    "DeepFoolAttackConfig",
    "FgsmAttackConfig",
    "LotsAttackConfig",
    "LotsAttackMode",
    "PgdAttackConfig",
    "DecisionBoundaryAttackConfig",
]

__iter__ = __all__.__iter__
