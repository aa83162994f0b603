from .transforms import *
from .transforms import _DropSample
