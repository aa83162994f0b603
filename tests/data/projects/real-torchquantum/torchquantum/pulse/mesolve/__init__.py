from .mesolve import mesolve
