# Mikel Broström 🔥 BoxMOT 🧾 AGPL-3.0 license

from .base import BaseKalmanFilter
from .xyah import KalmanFilterXYAH
from .xyhr import KalmanFilterXYHR
from .xyscr import KalmanFilterXYSCR
from .xysr import KalmanFilterXYSR
from .xywh import KalmanFilterXYWH

__all__ = [
    "BaseKalmanFilter",
    "KalmanFilterXYWH",
    "KalmanFilterXYAH",
    "KalmanFilterXYHR",
    "KalmanFilterXYSCR",
    "KalmanFilterXYSR",
]
