# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.
from .misc import TactilePushingDataset, visualize_tactile_push2d
from .models import (
    TactileMeasModel,
    TactileWeightModel,
    create_tactile_models,
    get_tactile_cost_weight_inputs,
    get_tactile_initial_optim_vars,
    get_tactile_motion_capture_inputs,
    get_tactile_nn_measurements_inputs,
    get_tactile_poses_from_values,
    init_tactile_model_from_file,
    update_tactile_pushing_inputs,
)
from .pose_estimator import TactilePoseEstimator
from .trainer import TactilePushingTrainer
