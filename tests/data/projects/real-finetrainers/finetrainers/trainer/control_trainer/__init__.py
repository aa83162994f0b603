from .config import ControlFullRankConfig, ControlLowRankConfig
from .trainer import ControlTrainer
