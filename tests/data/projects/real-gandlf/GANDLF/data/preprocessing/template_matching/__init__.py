from .histogram_matching import histogram_matching
from .stain_normalizer import stain_normalizer
