from autoemulate.learners.base import Emulator

from . import stream

# from .base import Emulator, Simulator
from .base import Simulator

__all__ = ["Emulator", "Simulator", "stream"]
