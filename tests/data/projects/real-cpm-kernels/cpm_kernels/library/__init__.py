from . import nvrtc
from . import cuda
from . import cudart
from . import cublaslt