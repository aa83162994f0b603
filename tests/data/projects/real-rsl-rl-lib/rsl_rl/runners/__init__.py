# Copyright (c) 2021-2026, ETH Zurich and NVIDIA CORPORATION
# All rights reserved.
#
# SPDX-License-Identifier: BSD-3-Clause

"""Runners for environment-agent interaction."""

from .on_policy_runner import OnPolicyRunner  # noqa: I001
from .distillation_runner import DistillationRunner

__all__ = ["DistillationRunner", "OnPolicyRunner"]
