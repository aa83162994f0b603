from .config import RoBERTaConfig
from .encoder import RoBERTaEncoder
