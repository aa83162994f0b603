from .gif import animate
from .imshow import plot_drr, overlay

__all__ = ["plot_drr", "overlay", "animate"]
