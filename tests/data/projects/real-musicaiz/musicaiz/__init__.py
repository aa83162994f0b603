# All the musicai sub-modules
from .structure import *
from .rhythm import *
from .harmony import *
from .features import *
from .plotters import *
from .tokenizers import *
from .datasets import *
from .converters import *
from .algorithms import *
from .models import *