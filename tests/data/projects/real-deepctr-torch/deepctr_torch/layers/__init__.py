from .interaction import *
from .core import *
from .utils import concat_fun
from .sequence import *
