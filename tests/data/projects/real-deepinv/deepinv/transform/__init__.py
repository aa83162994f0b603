from .rotate import Rotate, RotateViaShear
from .shift import Shift
from .scale import Scale
from .base import Transform, Identity
from .projective import Homography
from .reflect import Reflect
from .temporal import ShiftTime
from .diffeomorphism import CPABDiffeomorphism
from .augmentation import RandomNoise, RandomPhaseError
from .rotate import rotate_via_shear
