#!/usr/bin/env python3

from .dummy_mujoco_env import MujocoEnv
from .ant_direction import AntDirectionEnv
from .ant_forward_backward import AntForwardBackwardEnv
from .halfcheetah_forward_backward import HalfCheetahForwardBackwardEnv
from .humanoid_direction import HumanoidDirectionEnv
from .humanoid_forward_backward import HumanoidForwardBackwardEnv
