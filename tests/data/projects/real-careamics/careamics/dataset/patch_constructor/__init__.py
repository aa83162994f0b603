"""Patch constructor package. Patch constructors output a patch for a given index."""

__all__ = [
    "BasicPatchConstr",
    "IndependentTargetsMsPatchConstr",
    "MultiChannelTargetMsPatchConstr",
    "PairedInputTargetMsPatchConstr",
    "PatchConstr",
    "PredMsPatchConstr",
]

from .basic_patch_constructor import BasicPatchConstr
from .microsplit_patch_constructors import (
    IndependentTargetsMsPatchConstr,
    MultiChannelTargetMsPatchConstr,
    PairedInputTargetMsPatchConstr,
    PredMsPatchConstr,
)
from .patch_constructor import PatchConstr
