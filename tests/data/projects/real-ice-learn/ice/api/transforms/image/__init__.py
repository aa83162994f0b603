from . import io, photometric

from .io import *
from .photometric import *
from .spatial import *