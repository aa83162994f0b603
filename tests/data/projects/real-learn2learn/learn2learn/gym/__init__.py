#!/usr/bin/env python3

r"""
Environment, models, and other utilities related to reinforcement learning and OpenAI Gym.
"""

from . import envs
from .envs.meta_env import MetaEnv
from .async_vec_env import AsyncVectorEnv
