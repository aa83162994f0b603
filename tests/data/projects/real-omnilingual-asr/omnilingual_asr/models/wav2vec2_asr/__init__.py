# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from omnilingual_asr.models.wav2vec2_asr.config import (
    register_omnilingual_asr_wav2vec2_asr_configs as register_omnilingual_asr_wav2vec2_asr_configs,
)

__all__ = [
    "register_omnilingual_asr_wav2vec2_asr_configs",
]
