# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from .misc import TrajectoryDataset, generate_trajectory_figs
from .models import (
    InitialTrajectoryModel,
    ScalarCollisionWeightAndCostEpstModel,
    ScalarCollisionWeightModel,
)
from .motion_planner import MotionPlanner, MotionPlannerObjective
