from .least_squares import least_squares, least_squares_implicit_backward
from .lsqr import lsqr
from .conjugate_gradient import conjugate_gradient
from .bicgstab import bicgstab
from .minres import minres
