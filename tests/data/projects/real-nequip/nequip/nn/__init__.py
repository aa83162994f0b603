# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.
from ._graph_mixin import GraphModuleMixin, SequentialGraphNetwork
from .graph_model import GraphModel
from .atomwise import (
    AtomwiseOperation,
    AtomwiseReduce,
    AtomwiseLinear,
    PerTypeScaleShift,
)
from .nonlinearities import ShiftedSoftplus
from .mlp import ScalarMLP, ScalarMLPFunction
from .interaction_block import InteractionBlock
from .convnetlayer import ConvNetLayer
from .grad_output import PartialForceOutput, ForceStressOutput
from .misc import Concat, ApplyFactor, SaveForOutput
from .utils import scatter, tp_path_exists, with_edge_vectors_, with_edge_type_
from .model_modifier_utils import model_modifier, replace_submodules
from .norm import AvgNumNeighborsNorm

__all__ = [
    "GraphModel",
    "GraphModuleMixin",
    "SequentialGraphNetwork",
    "AtomwiseOperation",
    "AtomwiseReduce",
    "AtomwiseLinear",
    "PerTypeScaleShift",
    "ShiftedSoftplus",
    "ScalarMLP",
    "ScalarMLPFunction",
    "InteractionBlock",
    "PartialForceOutput",
    "ForceStressOutput",
    "ConvNetLayer",
    "Concat",
    "ApplyFactor",
    "SaveForOutput",
    "scatter",
    "tp_path_exists",
    "with_edge_vectors_",
    "with_edge_type_",
    "model_modifier",
    "replace_submodules",
    "AvgNumNeighborsNorm",
]
