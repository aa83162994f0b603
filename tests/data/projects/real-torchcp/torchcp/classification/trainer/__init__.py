# Copyright (c) 2023-present, SUSTech-ML.
# All rights reserved.
#
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.
#

from .base_trainer import BaseTrainer
from .conftr_trainer import ConfTrTrainer
from .confts_trainer import ConfTSTrainer
from .model_zoo import TemperatureScalingModel
from .ts_trainer import TSTrainer
from .ua_trainer import UncertaintyAwareTrainer
from .ordinal_trainer import OrdinalTrainer
from .scpo_trainer import SCPOTrainer