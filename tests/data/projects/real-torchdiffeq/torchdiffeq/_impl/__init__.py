from .odeint import odeint, odeint_dense, odeint_event
from .adjoint import odeint_adjoint
