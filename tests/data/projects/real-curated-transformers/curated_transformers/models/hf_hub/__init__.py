from .mixin import FromHF
