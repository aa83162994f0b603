from .dual_coupling import DualCoupling
from .single_coupling import SingleCoupling
