from cli.shared.types.attack.attack import (
    AttackCLIConfigType,
    BaseAttackCLIConfigType,
    TargetedAttackCLIConfigType,
)

__all__ = [
    "BaseAttackCLIConfigType",
    "TargetedAttackCLIConfigType",
    "AttackCLIConfigType",
]
