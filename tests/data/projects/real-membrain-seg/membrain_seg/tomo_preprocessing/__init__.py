"""Init file.

Perform preprocessing for cryo-electron tomograms before 
applying the neural network.
"""

# These imports are necessary to register CLI commands. Do not remove!
from .amplitude_spectrum_matching._cli import extract, match_spectrum  # noqa: F401
from .cli import cli  # noqa: F401
from .deconvolution._cli import deconvolve  # noqa: F401
from .pixel_size_matching._cli import match_pixel_size, match_seg_to_tomo  # noqa: F401
