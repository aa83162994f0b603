# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from ._count_flops import count_flops
from ._dense_image_warp import dense_image_warp
from ._estimate_tails import estimate_tails
from ._hsv_to_rgb import hsv_to_rgb
from ._image_to_255_scale import image_to_255_scale
from ._information_content import information_content
from ._log_cdf import log_cdf
from ._log_expm1 import log_expm1
from ._log_ndtr import log_ndtr
from ._log_survival_function import log_survival_function
from ._lower_bound import lower_bound
from ._lower_tail import lower_tail
from ._lpips import lpips
from ._multiscale_structural_similarity import multiscale_structural_similarity
from ._ndtr import ndtr
from ._optical_flow_to_color import optical_flow_to_color
from ._pad_image import pad_image_to_factor
from ._quantization_offset import quantization_offset
from ._soft_round import soft_round
from ._soft_round_conditional_mean import soft_round_conditional_mean
from ._soft_round_inverse import soft_round_inverse
from ._survival_function import survival_function
from ._upper_tail import upper_tail
