from .upper_half import UpperHalf
from .bounded_domain import BoundedDomain
from . import csym_math, vvd_metrics
