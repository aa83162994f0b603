from .generic.weights import init_weights
from .generic.metrics import (
    roc_auc_score,
    accuracy_score,
    mean_squared_error,
    mean_absolute_error,
    root_mean_squared_error,
    r2_score,
)
from .generic.pseudo_tasks import PSEUDOTASK
from .graph.graph_from_smiles import graph_from_smiles
from .graph.graph_to_smiles import graph_to_smiles
from .graph.features import get_atom_feature_dims, get_bond_feature_dims

__all__ = [
    "init_weights",
    # metric
    "roc_auc_score",
    "accuracy_score",
    "mean_squared_error", 
    "mean_absolute_error",
    "root_mean_squared_error", 
    "r2_score",
    # graph
    "graph_from_smiles",
    "graph_to_smiles",
    "get_atom_feature_dims",
    "get_bond_feature_dims",
    # pseudo_tasks
    "PSEUDOTASK",
]
