from sb3_contrib.crossq.crossq import CrossQ
from sb3_contrib.crossq.policies import MlpPolicy

__all__ = ["CrossQ", "MlpPolicy"]
