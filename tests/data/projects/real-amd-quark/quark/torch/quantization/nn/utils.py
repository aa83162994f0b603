#
# Copyright (C) 2023 - 2026 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

import torch

from quark.common.utils.log import ScreenLogger

logger = ScreenLogger(__name__)


def check_min_max_valid(min_val: torch.Tensor, max_val: torch.Tensor) -> bool:
    """Checks if the given minimum and maximum values are valid, meaning that
    they exist and the min value is less than the max value.
    """
    if min_val.numel() == 0 or max_val.numel() == 0:
        logger.warning("must run observer before calling calculate_qparams. " + "Returning default values.")
        return False

    if min_val.dim() == 0 or max_val.dim() == 0:
        if min_val == float("inf") and max_val == float("-inf"):
            logger.warning("must run observer before calling calculate_qparams. " + "Returning default values.")

            return False

        assert min_val <= max_val, f"min {min_val} should be less than max {max_val}"
    else:
        torch._assert_async(torch.all(min_val <= max_val), assert_msg="min val should be less than max val")

    return True
