# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.
"""Modules used for building the models."""

# flake8: noqa
from .conv import (
    NormConv1d,
    NormConv2d,
    NormConvTranspose1d,
    NormConvTranspose2d,
    StreamableConv1d,
    StreamableConvTranspose1d,
    pad_for_conv1d,
    pad1d,
    unpad1d,
)
from .lstm import StreamableLSTM
from .seanet import SEANetEncoder, SEANetDecoder
from .transformer import StreamingTransformer