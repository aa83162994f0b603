"""Top-level module for auraloss"""

# See LICENSE for license information
# For modifications, see commit history at
# https://github.com/Atkinson-Advanced-Modeling/auraloss/commits/main

# Import auraloss sub-modules
from . import freq, perceptual, time
