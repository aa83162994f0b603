from .deep_actor_critic import DeepAC
from .a2c import A2C
from .ddpg import DDPG
from .td3 import TD3
from .sac import SAC
from .trpo import TRPO
from .ppo import PPO

__all__ = ['DeepAC', 'A2C', 'DDPG', 'TD3', 'SAC', 'TRPO', 'PPO']