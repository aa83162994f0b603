from .t3 import T3
