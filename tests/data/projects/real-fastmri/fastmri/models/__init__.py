"""
Copyright (c) Facebook, Inc. and its affiliates.

This source code is licensed under the MIT license found in the
LICENSE file in the root directory of this source tree.
"""

from .adaptive_varnet import AdaptiveVarNet
from .policy import StraightThroughPolicy
from .unet import Unet
from .varnet import NormUnet, SensitivityModel, VarNet, VarNetBlock
