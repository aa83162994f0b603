# flake8: noqa
# Copyright (c) Kyutai, all rights reserved.
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.
"""
Modules to help doing generations under some fixed conditions.
"""

from .base import (ConditionType, ConditionAttributes, ConditionFuser, ConditionProvider,
                   BaseConditioner, TensorCondition, ConditionTensors, dropout_all_conditions)
