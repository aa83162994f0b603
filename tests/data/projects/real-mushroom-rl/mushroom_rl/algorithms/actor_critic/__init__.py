from .classic_actor_critic import StochasticAC, StochasticAC_AVG, COPDAC_Q
from .deep_actor_critic import DeepAC, A2C, DDPG, TD3, SAC, TRPO, PPO

__all__ = ['COPDAC_Q', 'StochasticAC', 'StochasticAC_AVG',
           'DeepAC', 'A2C', 'DDPG', 'TD3', 'SAC', 'TRPO', 'PPO']
