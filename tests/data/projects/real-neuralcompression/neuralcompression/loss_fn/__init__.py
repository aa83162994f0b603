# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from ._binary_crossentropy_loss import (
    BinaryCrossentropyDiscriminatorLoss,
    BinaryCrossentropyGeneratorLoss,
)
from ._distortion_loss import DistortionLoss
from ._gan_losses import DiscriminatorLoss, GeneratorLoss
from ._mse_loss import MSELoss
from ._mse_lpips_loss import MSELPIPSLoss
from ._normfix_lpips import NormFixLPIPS
from ._oasis_loss import OASISDiscriminatorLoss, OASISGeneratorLoss
from ._target_rate_config import TargetRateConfig
