try:
  import rich.traceback
  rich.traceback.install()
except ImportError:
  pass

from .core import *

from . import envs
from . import replay
from . import run
