from .affine import Affine, RandomAffine
from .flip import Flip, RandomFlip
from .rotate import RandomRotate, Rotate
from .scale import RandomScale, Scale
from .shear import RandomShear, Shear
from .translate import RandomTranslate, Translate
