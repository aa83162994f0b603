"""Public API. Importing this module does not initialize CUDA or load models."""
from .config import TrainConfig
from .trainer import FineTuner

__all__ = ["TrainConfig", "FineTuner"]
__version__ = "0.3.0"
