__version__ = "0.3.3"

from .adam import Adam, adam
from .adamw import AdamW, adamw
from .adan import Adan, adan
from .gradientrelease import prepare_for_gradient_release, remove_gradient_release
from .lion import Lion, lion
from .radam import RAdam, radam
from .ranger import Ranger, ranger
from .sgd import SGD, sgd
from .stableadamw import StableAdamW, stableadamw
from .utils import param_groups_weight_decay, to_low_precision
