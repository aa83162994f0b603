"""Top-level module for auraloss"""

# Import auraloss sub-modules
from . import freq
from . import time
from . import perceptual
