from .recognition import *  # NOQA
from .segmentation import *  # NOQA
from .align import *  # NOQA
