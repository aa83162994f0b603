from . import algorithm
from . import neuron