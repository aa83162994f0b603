# Copyright 2025 InstaDeep Ltd
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

from mlip.training.checkpointer import (
    CheckpointerConfig,
    CheckpointMetadata,
    OrbaxCheckpointer,
    RestoreResult,
)
from mlip.training.optimizer import (
    get_default_mlip_optimizer,
    get_mlip_optimizer_chain_with_flexible_base_optimizer,
)
from mlip.training.optimizer_config import OptimizerConfig
from mlip.training.training_io_handler import TrainingIOHandler, TrainingIOHandlerConfig
from mlip.training.training_loggers import (
    convert_mse_to_rmse_in_logs,
    log_metrics_to_line,
    log_metrics_to_table,
)
from mlip.training.training_loop import TrainingLoop
from mlip.training.training_loop_config import TrainingLoopConfig
