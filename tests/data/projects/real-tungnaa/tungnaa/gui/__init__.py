from .backend import *
from .senders import *