from . import learncurve
from .annot import annotation, plot_labels, plot_segments
from .spect import spect, spect_annot

__all__ = [
    "annotation",
    "learncurve",
    "plot_labels",
    "plot_segments",
    "spect",
    "spect_annot",
]
