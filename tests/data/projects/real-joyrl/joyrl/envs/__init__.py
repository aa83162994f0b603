from joyrl.envs import gym
__all__ = [
    "gym",
]