from .base import Seasonality  # noqa: F401
