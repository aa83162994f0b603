from .config import MiniCPM4Config
from .model import MiniCPMModel
from .cache import StaticKVCache
