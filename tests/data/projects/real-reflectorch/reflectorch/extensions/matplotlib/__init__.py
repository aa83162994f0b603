from reflectorch.extensions.matplotlib.losses import plot_losses

__all__ = [
    "plot_losses",
]
