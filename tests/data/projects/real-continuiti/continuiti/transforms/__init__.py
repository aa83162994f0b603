"""
`continuiti.transforms`

Data transformations in continuiti.
"""

from .transform import Transform
from .compose import Compose
from .scaling import Normalize
from .quantile_scaler import QuantileScaler

__all__ = ["Transform", "Compose", "Normalize", "QuantileScaler"]
