"""This module provides validation utilities for survival analysis inputs."""

from __future__ import annotations

from torchsurv.tools.validators import (
    EvalTimeInputs,
    ModelInputs,
    NewTimeInputs,
    SurvivalInputs,
    TimeVaryingCoxInputs,
    impute_missing_log_shape,
)

__all__ = [
    "EvalTimeInputs",
    "ModelInputs",
    "NewTimeInputs",
    "SurvivalInputs",
    "TimeVaryingCoxInputs",
    "impute_missing_log_shape",
]
