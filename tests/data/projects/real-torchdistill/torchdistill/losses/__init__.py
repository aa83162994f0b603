from . import high_level, mid_level, util
