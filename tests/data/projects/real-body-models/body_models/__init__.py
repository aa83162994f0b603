"""Public API for multi-runtime parametric and articulated body models."""

from body_models._base import (
    CorrectiveBasis,
    DenseCorrectiveBasis,
    LinearIdentity,
    ParameterRole,
    ParameterSpec,
    PointRegressor,
    SkinnedModel,
    SkinningIdentity,
    SkinningPose,
    SkinningSpec,
    SparseCorrectiveBasis,
)
from body_models._common.sparse import SparseMatrix
from body_models._constants import Joint
from body_models._registry import create_model, list_models
from body_models._rotations import RotationType
from body_models._runtime import (
    ArrayRuntime,
    KernelBackend,
    RuntimeName,
)

__all__ = [
    "ArrayRuntime",
    "CorrectiveBasis",
    "DenseCorrectiveBasis",
    "Joint",
    "KernelBackend",
    "LinearIdentity",
    "ParameterRole",
    "ParameterSpec",
    "PointRegressor",
    "RotationType",
    "RuntimeName",
    "SkinnedModel",
    "SkinningIdentity",
    "SkinningPose",
    "SkinningSpec",
    "SparseCorrectiveBasis",
    "SparseMatrix",
    "create_model",
    "list_models",
]
