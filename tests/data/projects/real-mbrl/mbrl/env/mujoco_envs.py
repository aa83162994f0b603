# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.
from .ant_truncated_obs import AntTruncatedObsEnv
from .humanoid_truncated_obs import HumanoidTruncatedObsEnv
from .mujoco_pixel_wrapper import MujocoGymPixelWrapper
from .pets_cartpole import CartPoleEnv
from .pets_halfcheetah import HalfCheetahEnv
from .pets_pusher import PusherEnv
from .pets_reacher import Reacher3DEnv
