"""Training and lightning related Pydantic configurations."""

__all__ = [
    "LrSchedulerConfig",
    "OptimizerConfig",
]


from .optimizer_configs import LrSchedulerConfig, OptimizerConfig
