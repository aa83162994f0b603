#!/usr/bin/env python3

from .constant_mean import ConstantMean
from .constant_mean_grad import ConstantMeanGrad
from .constant_mean_gradgrad import ConstantMeanGradGrad
from .linear_mean import LinearMean
from .linear_mean_grad import LinearMeanGrad
from .linear_mean_gradgrad import LinearMeanGradGrad
from .mean import Mean
from .multitask_mean import MultitaskMean
from .zero_mean import ZeroMean

__all__ = [
    "Mean",
    "ConstantMean",
    "ConstantMeanGrad",
    "ConstantMeanGradGrad",
    "LinearMean",
    "LinearMeanGrad",
    "LinearMeanGradGrad",
    "MultitaskMean",
    "ZeroMean",
]
