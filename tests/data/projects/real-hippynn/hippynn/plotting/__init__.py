"""
Facilities for plotting data during validation/test evaluations.

"""
from .plotmaker import PlotMaker
from .plotters import Hist2D, Hist1D, ComposedPlotter, SensitivityPlot, HierarchicalityPlot
from .timeplots import plot_all_over_time


__all__ = [
    "PlotMaker",
    "Hist2D",
    "Hist1D",
    "ComposedPlotter",
    "SensitivityPlot",
    "HierarchicalityPlot",
]