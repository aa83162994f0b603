from .irmae import IRMAE
from .lcfm import CFM, LCFM
