"""
Scale transformations for IRT models.
"""
from .scale import Scale
from .bit import Bit
from .flow import Flow
from .rank_cdf import RankCDF
from .reverse import Reverse
from .rotate import Rotate
from .link_common_items import LinkCommonItems
