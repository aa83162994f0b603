from .core import _MetaContainer, Registry, Configurable, make_configurable
from .engine import Engine
from .meter import Meter
from .logger import LoggerBase, LoggingLogger, WandbLogger

__all__ = [
    "_MetaContainer", "Registry", "Configurable",
    "Engine", "Meter", "LoggerBase", "LoggingLogger", "WandbLogger",
]