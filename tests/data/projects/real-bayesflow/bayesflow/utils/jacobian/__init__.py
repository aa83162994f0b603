from .jacobian import jacobian
from .jacobian_trace import jacobian_trace
from .jvp import jvp
from .vjp import vjp
