"""Higher level drawing functions."""

from .base import Base
from .caf import Caf
from .cif import Cif
from .cifdet import CifDet
from .cifhr import CifHr
from .cli import cli, configure
from .multi_tracking import MultiTracking
from .occupancy import Occupancy
from .seeds import Seeds
from .tcaf import Tcaf

__all__ = [
    'Caf',
    'Cif',
    'CifDet',
    'CifHr',
    'MultiTracking',
    'Occupancy',
    'Seeds',
    'Tcaf',
]
