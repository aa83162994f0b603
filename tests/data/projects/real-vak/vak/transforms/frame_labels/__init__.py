from . import functional, transforms
from .functional import *  # noqa : F401
from .transforms import ToLabels  # noqa : F401
from .transforms import FromSegments, PostProcess, ToSegments

__all__ = [
    "functional",
    "transforms",
    "FromSegments",
    "PostProcess",
    "ToLabels",
    "ToSegments",
]
