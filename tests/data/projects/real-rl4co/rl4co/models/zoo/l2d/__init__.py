from .model import L2DModel, L2DPPOModel
from .policy import L2DAttnPolicy, L2DPolicy, L2DPolicy4PPO
