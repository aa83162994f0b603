# ruff: noqa: F401
from .sghmc import SGHMC
from .sgld import SGLD
