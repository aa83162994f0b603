from .config import TabMConfig
from .tabm_model import TabMModel