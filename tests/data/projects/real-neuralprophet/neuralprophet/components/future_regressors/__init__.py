from .base import FutureRegressors  # noqa: F401
