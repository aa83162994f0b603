# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.
from .eval_model_on_dataset import DatasetEvaluator
from .finetune_model_with_controller import FineTuner
from .visualize_model_preds import Visualizer
