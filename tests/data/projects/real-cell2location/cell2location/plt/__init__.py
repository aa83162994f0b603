from .plot_expected_vs_obs import plot_expected_vs_obs
from .plot_factor_spatial import plot_categ_spatial, plot_factor_spatial
from .plot_in_1D import plot_absolute_abundances_1D, plot_density_1D
from .plot_spatial import plot_spatial

__all__ = [
    "plot_spatial",
    "plot_density_1D",
    "plot_absolute_abundances_1D",
    "plot_expected_vs_obs",
    "plot_factor_spatial",
    "plot_categ_spatial",
]
