from . import curvefit, dirname, frame_classification, learncurve
from .learncurve import learning_curve

__all__ = [
    "curvefit",
    "dirname",
    "frame_classification",
    "learncurve",
    "learning_curve",
]
