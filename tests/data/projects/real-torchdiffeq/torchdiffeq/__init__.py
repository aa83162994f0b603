from ._impl import odeint
from ._impl import odeint_adjoint
from ._impl import odeint_event
from ._impl import odeint_dense
__version__ = "0.2.5"
