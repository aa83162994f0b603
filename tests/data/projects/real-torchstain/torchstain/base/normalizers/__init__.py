from .he_normalizer import HENormalizer
from .macenko import MacenkoNormalizer
from .multitarget import MultiMacenkoNormalizer
from .reinhard import ReinhardNormalizer
