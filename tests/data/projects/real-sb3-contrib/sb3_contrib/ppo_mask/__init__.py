from sb3_contrib.ppo_mask.policies import CnnPolicy, MlpPolicy, MultiInputPolicy
from sb3_contrib.ppo_mask.ppo_mask import MaskablePPO

__all__ = ["CnnPolicy", "MaskablePPO", "MlpPolicy", "MultiInputPolicy"]
