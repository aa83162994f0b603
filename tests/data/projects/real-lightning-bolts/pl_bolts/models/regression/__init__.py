from pl_bolts.models.regression.linear_regression import LinearRegression
from pl_bolts.models.regression.logistic_regression import LogisticRegression

__all__ = [
    "LinearRegression",
    "LogisticRegression",
]
