from . import dio
from . import pyin
