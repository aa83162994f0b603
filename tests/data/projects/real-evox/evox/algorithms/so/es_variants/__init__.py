__all__ = [
    "OpenES",
    "XNES",
    "SeparableNES",
    "DES",
    "SNES",
    "ARS",
    "ASEBO",
    "PersistentES",
    "NoiseReuseES",
    "GuidedES",
    "ESMC",
    "CMAES",
    "VirtualES",
    "VirtualLoRAES",
]


from .ars import ARS
from .asebo import ASEBO
from .cma_es import CMAES
from .des import DES
from .esmc import ESMC
from .guided_es import GuidedES
from .nes import XNES, SeparableNES
from .noise_reuse_es import NoiseReuseES
from .open_es import OpenES
from .persistent_es import PersistentES
from .snes import SNES
from .virtual_es import VirtualES, VirtualLoRAES
