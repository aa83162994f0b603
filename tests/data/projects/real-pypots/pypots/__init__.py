"""
PyPOTS package.
"""

# Created by Wenjie Du <wenjay.du@gmail.com>
# License: BSD-3-Clause


from . import (
    imputation,
    classification,
    clustering,
    forecasting,
    anomaly_detection,
    representation,
    optim,
    data,
    utils,
)
from .timeseries_ai import TimeSeriesAI
from .version import __version__

__all__ = [
    "TimeSeriesAI",
    "imputation",
    "classification",
    "clustering",
    "forecasting",
    "anomaly_detection",
    "representation",
    "optim",
    "data",
    "utils",
    "__version__",
]
