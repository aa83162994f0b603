from .config import BERTConfig
from .encoder import BERTEncoder
