from .model import MetaMACE
from .trainer import Trainer


__model__ = MetaMACE
__trainer__ = Trainer

__authors__ = [
    ("Pol Febrer <pol.febrer@epfl.ch>", "@pfebrer"),
    ("Joseph W. Abbott <joseph.william.abbott@gmail.com>", "@jwa7"),
]

__maintainers__ = [
    ("Pol Febrer <pol.febrer@epfl.ch>", "@pfebrer"),
]
