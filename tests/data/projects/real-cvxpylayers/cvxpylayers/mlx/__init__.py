from cvxpylayers.mlx.cvxpylayer import CvxpyLayer

__all__ = ["CvxpyLayer"]
