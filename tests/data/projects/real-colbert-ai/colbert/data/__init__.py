from .collection import *
from .queries import *

from .ranking import *
from .examples import *
