"""Plotting Module."""

from .autocorrelation import plot_autocorrelation
from .loss import plot_loss
from .noise_model import plot_noise_model_distribution
from .noise_residual import plot_noise_residuals

__all__ = [
    "plot_autocorrelation",
    "plot_loss",
    "plot_noise_model_distribution",
    "plot_noise_residuals",
]
