from .core.compare import AutoEmulate
from .core.logging_config import get_logger

get_logger()

__all__ = ["AutoEmulate"]
