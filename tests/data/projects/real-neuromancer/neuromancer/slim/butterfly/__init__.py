from .butterfly import Butterfly
