"""
neuralop.data contains APIs for PDE datasets (.datasets)
and APIs to transform raw data inputs into forms more suited
to training machine learning models (.transforms)
"""
from . import datasets
from . import transforms
