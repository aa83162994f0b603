# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.
from .utils import model_builder, override_model_compile_mode
from .modify_utils import modify
from .saved_models import (
    ModelFromCheckpoint,
    ModelFromPackage,
    ModelTypeNamesFromPackage,
)
from .nequip_models import (
    NequIPGNNModel,
    PresetNequIPGNNModel,
    FullNequIPGNNModel,
)
from .pair_potential import ZBLPairPotential
from .param_groups import MuonParamGroups

__all__ = [
    "model_builder",
    "override_model_compile_mode",
    "modify",
    "ModelFromCheckpoint",
    "ModelFromPackage",
    "ModelTypeNamesFromPackage",
    "NequIPGNNModel",
    "PresetNequIPGNNModel",
    "FullNequIPGNNModel",
    "ZBLPairPotential",
    "MuonParamGroups",
]
