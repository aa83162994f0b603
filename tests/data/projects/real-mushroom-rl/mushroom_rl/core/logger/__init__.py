from .console_logger import ConsoleLogger
from .data_logger import DataLogger
from .logger import Logger


__all__ = ['Logger', 'ConsoleLogger', 'DataLogger']
