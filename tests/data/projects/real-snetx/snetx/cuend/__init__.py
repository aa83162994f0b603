from . import neuron
from . import utils