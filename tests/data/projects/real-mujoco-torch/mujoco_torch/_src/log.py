# Copyright 2023 DeepMind Technologies Limited
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
# ==============================================================================
"""Logging configuration for mujoco-torch."""

import logging
import os

LOGGING_LEVEL = os.environ.get("MUJOCO_TORCH_LOGGING_LEVEL", "INFO")

logger = logging.getLogger("mujoco_torch")
logger.setLevel(LOGGING_LEVEL)
logger.propagate = False

while logger.hasHandlers():
    logger.removeHandler(logger.handlers[0])

_handler = logging.StreamHandler()
_handler.setLevel(LOGGING_LEVEL)
_handler.setFormatter(logging.Formatter("%(asctime)s [%(name)s][%(levelname)s] %(message)s"))
logger.addHandler(_handler)
