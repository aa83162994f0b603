from .grid import *
from .identity import Identity
from .intensity import *
from .pipeline import Pipeline
from .spatial import *
from .transform import Transform
