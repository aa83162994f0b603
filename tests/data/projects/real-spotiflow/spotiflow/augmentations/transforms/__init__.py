from .crop import Crop
from .fliprot import FlipRot90
from .intensity_shift import IntensityScaleShift
from .noise import GaussianNoise, SaltAndPepperNoise
from .rotation import Rotation
from .scale import IsotropicScale
from .translation import Translation
