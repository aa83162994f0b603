from .mpn import MessagePassingNeuralNetwork
from .rmpn import ResidualMessagePassingNeuralNetwork

from .transformation import *
from .propagation import Sum, WeightedSum, Mean, Max, Min, Prod
from .update import *

from .cla import CombineLayerActivation
from .ldw import LearnableDistancewWeighting
