from . import interfaces
