from .config import SFTFullRankConfig, SFTLowRankConfig
from .trainer import SFTTrainer
