from cvxpylayers.jax.cvxpylayer import CvxpyLayer

__all__ = ["CvxpyLayer"]
