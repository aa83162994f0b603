from .config import ScenarioConfig  # noqa: F401
from .energy_star.config import EnergyStarConfig  # noqa: F401
from .inference.config import InferenceConfig  # noqa: F401
from .training.config import TrainingConfig  # noqa: F401

__all__ = [
    "EnergyStarConfig",
    "InferenceConfig",
    "TrainingConfig",
    "ScenarioConfig",
]
