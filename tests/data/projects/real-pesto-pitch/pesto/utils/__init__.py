from .crop_cqt import CropCQT
from .export import export
from .hcqt import HarmonicCQT
from .reduce_activations import reduce_activations