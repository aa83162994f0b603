"""
Pytorch modules that represent composable pieces of models.
"""
from . import hiplayers
from . import indexers
from . import targets
from . import transform
from . import physics
from . import excited
