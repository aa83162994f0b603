"""
This submodule contains data related code and numpy operations.
"""
from .cpn import *
from .cpn import labels2contour_list as labels2contours
from .misc import *
from .instance_eval import LabelMatcherList, LabelMatcher
from .segmentation import *
from .datasets import *
