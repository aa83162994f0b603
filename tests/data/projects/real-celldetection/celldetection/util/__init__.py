from .util import *
from .timer import *
from .schedule import *
from .shm_cache import *
from .logging import *
