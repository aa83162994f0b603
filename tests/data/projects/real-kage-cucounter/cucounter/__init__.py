from . import counter
from .counter import Counter
