# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.

from .weight_only_propagate import WeightOnlyLayoutPropagation  # noqa: F401
from .apply_fast_tuning import (
    ApplyDefaultSchedule,  # noqa: F401
    ApplyFastTuning,  # noqa: F401
)
