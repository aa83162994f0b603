from .similarity import SimilarityHook
from .fourier import fourier_map
from .landscape import landscape1d, landscape2d
