# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from torchtitan.config import Configurable

from .model import BaseModel
from .model_spec import ModelSpec
from .module import Module
from .state_dict_adapter import BaseStateDictAdapter, StateDictAdapter

__all__ = [
    "BaseModel",
    "Configurable",
    "ModelSpec",
    "Module",
    "StateDictAdapter",
    "BaseStateDictAdapter",
]
