from ._version import version as VERSION  # noqa

from caskade import forward, Module, Param, ValidContext

from .cosmology import Cosmology, FlatLambdaCDM
from .lenses import (
    ThinLens,
    ThickLens,
    EPL,
    ExternalShear,
    PixelatedConvergence,
    PixelatedPotential,
    PixelatedDeflection,
    Multiplane,
    NFW,
    Point,
    PseudoJaffe,
    SIE,
    SIS,
    SinglePlane,
    BatchedPlane,
    MassSheet,
    TNFW,
    Multipole,
    EnclosedMass,
)
from .light import (
    Source,
    Pixelated,
    PixelatedTime,
    Sersic,
    LightStack,
    StarSource,
)
from .angle_mixin import Angle_Mixin
from . import utils
from .backend_obj import backend
from .sims import LensSource, Microlens, build_simulator
from .tests import test
from . import func

__version__ = VERSION
__author__ = "Ciela Institute"

__all__ = [
    "Module",
    "Param",
    "ValidContext",
    "forward",
    "Cosmology",
    "FlatLambdaCDM",
    "ThinLens",
    "ThickLens",
    "EPL",
    "ExternalShear",
    "PixelatedConvergence",
    "PixelatedPotential",
    "PixelatedDeflection",
    "Multiplane",
    "NFW",
    "Point",
    "PseudoJaffe",
    "SIE",
    "SIS",
    "SinglePlane",
    "BatchedPlane",
    "MassSheet",
    "TNFW",
    "Multipole",
    "EnclosedMass",
    "Source",
    "Pixelated",
    "PixelatedTime",
    "Sersic",
    "LightStack",
    "StarSource",
    "Angle_Mixin",
    "utils",
    "backend",
    "LensSource",
    "Microlens",
    "test",
    "build_simulator",
    "func",
]
