from sb3_contrib.ars.ars import ARS
from sb3_contrib.ars.policies import LinearPolicy, MlpPolicy

__all__ = ["ARS", "LinearPolicy", "MlpPolicy"]
