# ruff: noqa: F401
from .abstract import PostProcessing
from .calibration import (
    BBQScaler,
    DirichletScaler,
    HistogramBinningScaler,
    IsotonicRegressionScaler,
    MatrixScaler,
    TemperatureScaler,
    VectorScaler,
)
from .conformal import (
    Conformal,
    ConformalClsAPS,
    ConformalClsRAPS,
    ConformalClsTHR,
    ConformalRegCQR,
)
from .deup import DEUP
from .laplace import LaplaceApprox
from .mc_batch_norm import MCBatchNorm
