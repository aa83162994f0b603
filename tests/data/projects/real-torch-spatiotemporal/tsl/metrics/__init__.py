from . import numpy, torch

# aliases
torch_metrics = torch
numpy_metrics = numpy
