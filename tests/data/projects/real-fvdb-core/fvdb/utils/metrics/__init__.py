# Copyright Contributors to the OpenVDB Project
# SPDX-License-Identifier: Apache-2.0

"""Image similarity metrics for reconstruction and rendering evaluation."""

from fvdb.utils.metrics.psnr import psnr
from fvdb.utils.metrics.ssim import ssim

__all__ = ["psnr", "ssim"]
