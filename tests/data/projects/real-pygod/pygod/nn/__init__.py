from .adone import AdONEBase
from .anomalydae import AnomalyDAEBase
from .cola import CoLABase
from .dmgd import DMGDBase
from .dominant import DOMINANTBase
from .done import DONEBase
from .gaan import GAANBase
from .gadnr import GADNRBase
from .gae import GAEBase
from .guide import GUIDEBase
from .ocgnn import OCGNNBase
from . import conv
from . import decoder
from . import encoder
from . import functional

__all__ = [
    "AdONEBase", "AnomalyDAEBase", "CoLABase", "DMGDBase", "DOMINANTBase",
    "DONEBase", "GAANBase", "GADNRBase", "GAEBase", "GUIDEBase", "OCGNNBase"
]
