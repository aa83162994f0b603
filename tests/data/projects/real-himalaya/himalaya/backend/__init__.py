from ._utils import ALL_BACKENDS
from ._utils import CURRENT_BACKEND
from ._utils import set_backend
from ._utils import get_backend
from ._utils import force_cpu_backend

__all__ = [
    "ALL_BACKENDS",
    "CURRENT_BACKEND",
    "set_backend",
    "get_backend",
    "force_cpu_backend",
]
