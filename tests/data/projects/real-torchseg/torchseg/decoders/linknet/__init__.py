from .model import Linknet  # noqa: F401
