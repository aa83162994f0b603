'''Data parsing, filtering, and encoding to a network-readable format.'''

from .data import Data
from .tensor_data import TensorData