# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from .collision import Collision2D, EffectorObjectContactPlanar, SignedDistanceField2D
from .kinematics import IdentityModel, KinematicsModel, UrdfRobotModel
from .measurements import Between, MovingFrameBetween, Reprojection
from .misc import Local
from .motionmodel import (
    DoubleIntegrator,
    GPCostWeight,
    GPMotionModel,
    HingeCost,
    Nonholonomic,
    QuasiStaticPushingPlanar,
)
