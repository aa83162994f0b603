from sb3_contrib.trpo.policies import CnnPolicy, MlpPolicy, MultiInputPolicy
from sb3_contrib.trpo.trpo import TRPO

__all__ = ["TRPO", "CnnPolicy", "MlpPolicy", "MultiInputPolicy"]
