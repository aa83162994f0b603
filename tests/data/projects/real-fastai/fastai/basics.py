from .data.all import *
from .optimizer import *
from .callback.core import *
from .learner import *
from .metrics import *
from .interpret import *
