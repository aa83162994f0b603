from . import layers
from . import loss
from . import quantize
