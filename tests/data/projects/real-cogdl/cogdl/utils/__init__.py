from .utils import *
from .evaluator import *
from .sampling import *
from .graph_utils import *
from .spmm_utils import *
from .transform import *
