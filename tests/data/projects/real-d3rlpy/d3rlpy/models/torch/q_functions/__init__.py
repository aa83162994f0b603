from .base import *
from .ensemble_q_function import *
from .iqn_q_function import *
from .mean_q_function import *
from .qr_q_function import *
from .utility import *
