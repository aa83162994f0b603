from .logic import jacobian
from .default_mode import jacobian_default_mode
