from .MultKAN import *
from .utils import *
#torch.use_deterministic_algorithms(True)