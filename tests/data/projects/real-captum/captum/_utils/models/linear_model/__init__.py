# pyre-strict
from captum._utils.models.linear_model.model import (
    LinearModel,
    SGDLasso,
    SGDLinearModel,
    SGDLinearRegression,
    SGDRidge,
    SkLearnLasso,
    SkLearnLinearModel,
    SkLearnLinearRegression,
    SkLearnRidge,
)

__all__ = [
    "LinearModel",
    "SGDLinearModel",
    "SGDLasso",
    "SGDRidge",
    "SGDLinearRegression",
    "SkLearnLinearModel",
    "SkLearnLasso",
    "SkLearnRidge",
    "SkLearnLinearRegression",
]
