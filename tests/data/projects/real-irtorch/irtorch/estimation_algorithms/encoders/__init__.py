from .base_encoder import BaseEncoder
from .standard_encoder import StandardEncoder
from .variational_encoder import VariationalEncoder
from .bounded_encoder import BoundedEncoder
