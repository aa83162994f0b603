from . import defaults
from . import citations