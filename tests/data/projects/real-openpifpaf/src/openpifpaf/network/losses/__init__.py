from .composite import CompositeLoss
from .factory import Factory
from . import components
