from .crop import Crop3D
from .fliprot import FlipRot903D
from .intensity_shift import IntensityScaleShift3D
from .noise import GaussianNoise3D, SaltAndPepperNoise3D
from .rotation import RotationYX3D
from .translation import TranslationYX3D
