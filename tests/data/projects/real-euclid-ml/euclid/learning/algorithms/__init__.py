"""Reinforcement-learning algorithms."""

from .algorithm import RLAlgorithm
from .ppo import PPO
from .reinforce import REINFORCE

__all__ = ["RLAlgorithm", "PPO", "REINFORCE"]
