"""PhyTorch model library."""

from .base import Model
from . import photosynthesis
from . import hydraulics
from . import generic
from . import canopy
from . import stomatal
from . import leafoptics

__all__ = ['Model', 'photosynthesis', 'hydraulics', 'generic', 'canopy', 'stomatal', 'leafoptics']
