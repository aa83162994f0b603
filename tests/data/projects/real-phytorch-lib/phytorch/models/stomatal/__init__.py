"""Stomatal conductance models for PhyTorch."""

from .med2011 import MED2011
from .bwb1987 import BWB1987
from .bbl1995 import BBL1995
from .bta2012 import BTA2012

__all__ = ['MED2011', 'BWB1987', 'BBL1995', 'BTA2012']
