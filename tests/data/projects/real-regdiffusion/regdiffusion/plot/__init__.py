from .pyvis import plot_pyvis
from .static import (
    plot_network,
    plot_heatmap,
    plot_degree_distribution,
    plot_training_curves
)

__all__ = [
    'plot_pyvis',
    'plot_network',
    'plot_heatmap',
    'plot_degree_distribution',
    'plot_training_curves'
]
