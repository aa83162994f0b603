from .normal import cholesky_precision, covariance, log_normal, sample_normal
from .types import CovarianceType
from .utils import covariance_dim, covariance_shape

__all__ = [
    "cholesky_precision",
    "log_normal",
    "sample_normal",
    "covariance",
    "CovarianceType",
    "covariance_dim",
    "covariance_shape",
]
