# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.
from .basic_ensemble import BasicEnsemble
from .gaussian_mlp import GaussianMLP
from .model import Ensemble, Model
from .model_env import ModelEnv
from .model_trainer import ModelTrainer
from .one_dim_tr_model import OneDTransitionRewardModel
from .planet import PlaNetModel
from .util import (
    Conv2dDecoder,
    Conv2dEncoder,
    EnsembleLinearLayer,
    truncated_normal_init,
)
