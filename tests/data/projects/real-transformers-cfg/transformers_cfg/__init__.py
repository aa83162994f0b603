from .logging_config import setup_logging

setup_logging()

__version__ = "0.2.7"
