from .config import BaseConfig, AuroraInfererConfig
from .inferer import AuroraInferer
