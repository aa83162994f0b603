from .CloudSimulator import *
from .band_magnitudes import *