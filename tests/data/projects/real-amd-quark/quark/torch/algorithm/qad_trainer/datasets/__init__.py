#
# Copyright (C) 2026 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#
from .lm_datasets import PileLMDataset, TaskMixDataset, WikiTextLMDataset

__all__ = ["WikiTextLMDataset", "PileLMDataset", "TaskMixDataset"]
