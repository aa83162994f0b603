# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from ._msillm import (
    msillm_quality_1,
    msillm_quality_2,
    msillm_quality_3,
    msillm_quality_4,
    msillm_quality_5,
    msillm_quality_6,
)
from ._msillm_vqvae import vqvae_xcit_p8_ch64_cb1024_h8
from ._noganms import (
    noganms_quality_1,
    noganms_quality_2,
    noganms_quality_3,
    noganms_quality_4,
    noganms_quality_5,
    noganms_quality_6,
)
