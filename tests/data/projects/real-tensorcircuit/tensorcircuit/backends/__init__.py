# prerun to hack base abstract backend
from .backend_factory import get_backend
