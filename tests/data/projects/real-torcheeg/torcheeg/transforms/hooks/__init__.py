from .before_hook import *
from .after_hook import *