# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.

from .checkpoint import ModelFromCheckpoint
from .package import ModelFromPackage, ModelTypeNamesFromPackage
from .load_utils import load_saved_model

__all__ = [
    "ModelFromCheckpoint",
    "ModelFromPackage",
    "ModelTypeNamesFromPackage",
    "load_saved_model",
]
