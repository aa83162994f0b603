from .agnp import *
from .climate import *
from .convgnp import *
from .fullconvgnp import *
from .gnp import *
