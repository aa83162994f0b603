from .criterions import UnilateralMse, MixLoss
from .visualization import plot_tsne, plot_tsne_3d, plot_confusion_matrix


__all__ = [
    'UnilateralMse', 'MixLoss',
    'plot_tsne','plot_tsne_3d', 'plot_confusion_matrix'
]