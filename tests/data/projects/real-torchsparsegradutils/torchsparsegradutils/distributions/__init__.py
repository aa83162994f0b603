from .sparse_multivariate_normal import SparseMultivariateNormal, SparseMultivariateNormalNative

__all__ = ["SparseMultivariateNormal", "SparseMultivariateNormalNative"]
