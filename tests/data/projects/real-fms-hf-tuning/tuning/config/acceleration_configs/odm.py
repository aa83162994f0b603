# Copyright The FMS HF Tuning Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Standard
from dataclasses import dataclass
from typing import Optional, Union

# Local
from .utils import ensure_nested_dataclasses_initialized, parsable_dataclass


@parsable_dataclass
@dataclass
class ODM:
    update_interval: int = None
    sampling_interval: int = 1
    reward_type: str = "entropy"
    gamma: float = 0.1
    eta: float = 0.3
    resume_from_checkpoint: Union[bool, str] = False
    auto_categorize_input_column: str = None
    auto_categorize_num_categories: Optional[int] = None
    auto_categorize_model_name: str = "Qwen/Qwen3-Embedding-0.6B"
    auto_categorize_batch_size: int = 64


@dataclass
class ODMConfig:

    odm: ODM = None

    def __post_init__(self):
        # ensure nested dataclasses initialized
        ensure_nested_dataclasses_initialized(self)
