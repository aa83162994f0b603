from .projutils import *
