from .sesolve import sesolve
