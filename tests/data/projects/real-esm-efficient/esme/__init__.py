from esme.esm import ESMC, ESM2, ESM1b, ESM1v, ESM
from esme.alphabet import tokenize

__all__ = ["ESM", "ESMC", "ESM2", "ESM1b", "ESM1v", "tokenize"]
