from .he_augmentor import HEAugmentor
from .macenko import MacenkoAugmentor
