from .config import PeMLPConfig
from .pemlp_model import PeMLPModel