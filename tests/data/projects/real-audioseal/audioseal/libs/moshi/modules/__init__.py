# Copyright (c) Kyutai, all rights reserved.
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.

# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.
"""Modules used for building the models."""

# flake8: noqa
from .conv import (
    NormConv1d,
    NormConvTranspose1d,
    StreamingConv1d,
    StreamingConvTranspose1d,
    pad1d,
    pad_for_conv1d,
    unpad1d,
)
from .seanet import SEANetDecoder, SEANetEncoder, SEANetEncoderKeepDimension
from .transformer import StreamingTransformer
