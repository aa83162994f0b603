"""
Copyright (c) Facebook, Inc. and its affiliates.

This source code is licensed under the MIT license found in the
LICENSE file in the root directory of this source tree.
"""

from .data_module import FastMriDataModule
from .mri_module import MriModule
from .unet_module import UnetModule
from .varnet_module import VarNetModule
