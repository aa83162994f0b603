# Copyright 2021 The NetKet Authors - All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#    http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

from netket._src.logging.base import AbstractLog as AbstractLog
from netket._src.logging.runtime_log import RuntimeLog as RuntimeLog
from netket._src.logging.json_log import JsonLog as JsonLog
from netket._src.logging.state_log import StateLog as StateLog
from netket._src.logging.tensorboard import TensorBoardLog as TensorBoardLog
from netket._src.logging.hdf5_log import HDF5Log as HDF5Log
from netket._src.logging.mlflow_log import MLFlowLog as MLFlowLog
from netket._src.logging.wandb_log import WandbLog as WandbLog

from netket._src.callbacks.save_state import (
    SaveVariationalState as SaveVariationalState,
)


from netket.utils.moduletools import auto_export as _auto_export

_auto_export(__name__)
del _auto_export
