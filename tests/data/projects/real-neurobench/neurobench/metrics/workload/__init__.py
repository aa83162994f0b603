from .membrane_updates import MembraneUpdates
from .activation_sparsity import ActivationSparsity
from .synaptic_operations import SynapticOperations
from .classification_accuracy import ClassificationAccuracy
from .activation_sparsity_by_layer import ActivationSparsityByLayer
from .mse import MSE
from .smape import SMAPE
from .r2 import R2
from .coco_map import CocoMap
from .neuron_operations import NeuronOperations

__stateless__ = [
    "ClassificationAccuracy",
    "ActivationSparsity",
    "MSE",
    "SMAPE",
    "ActivationSparsityByLayer",
]

__stateful__ = [
    "MembraneUpdates",
    "SynapticOperations",
    "R2",
    "CocoMap",
    "NeuronOperations",
]

__all__ = __stateful__ + __stateless__
