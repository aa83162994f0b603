from .distribute import distribute
