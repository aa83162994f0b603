from .cross import MultiheadCrossAttention
from .self import MultiheadSelfAttention
