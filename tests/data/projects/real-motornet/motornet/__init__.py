"""
A PyTorch-powered python toolbox to train deep neural networks to perform motor tasks.
"""

__name__ = "motornet"
__version__ = "0.3.0"

from . import muscle
from . import skeleton
from . import environment
from . import effector
from . import plotor
from . import policy