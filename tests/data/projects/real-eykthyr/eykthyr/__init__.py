from . import plotting as pl
from .__about__ import __version__
