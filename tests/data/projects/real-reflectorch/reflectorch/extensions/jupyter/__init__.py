"""
Reflectorch Jupyter Extensions
"""
from reflectorch.extensions.jupyter.api import create_widget, ReflectorchPlotlyWidget
from reflectorch.extensions.jupyter.callbacks import JPlotLoss

__all__ = [
    'create_widget',
    'JPlotLoss',
    'ReflectorchPlotlyWidget',
]
