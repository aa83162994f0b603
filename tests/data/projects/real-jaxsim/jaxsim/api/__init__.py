from . import common  # isort:skip
from . import model, data  # isort:skip
from . import (
    actuation_model,
    com,
    contact,
    frame,
    integrators,
    joint,
    kin_dyn_parameters,
    link,
    ode,
    references,
)
