# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.

from .transform import (
    WeightOnlyLayoutPropagation,  # noqa: F401
    ApplyDefaultSchedule,  # noqa: F401
    ApplyFastTuning,  # noqa: F401
)
from .op import tir_interleave_weight  # noqa: F401
