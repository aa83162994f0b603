__version__ = "4.2.30"

from .logger import init_logger

init_logger()
