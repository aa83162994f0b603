from .dropout import *
from .keepalive import *