__all__ = ["DE", "CoDE", "JaDE", "ODE", "SaDE", "SHADE"]


from .code import CoDE
from .de import DE
from .jade import JaDE
from .ode import ODE
from .sade import SaDE
from .shade import SHADE
