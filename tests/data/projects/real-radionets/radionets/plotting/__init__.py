from .hist import Hist
from .inspection import plot_loss, plot_lr, plot_lr_loss

__all__ = [
    "Hist",
    "plot_loss",
    "plot_lr",
    "plot_lr_loss",
]
