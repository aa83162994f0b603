from sb3_contrib.qrdqn.policies import CnnPolicy, MlpPolicy, MultiInputPolicy
from sb3_contrib.qrdqn.qrdqn import QRDQN

__all__ = ["QRDQN", "CnnPolicy", "MlpPolicy", "MultiInputPolicy"]
