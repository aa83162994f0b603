from .extractor import F0Extractor
from .rmvpe import RMVPE
from .load import load_rmvpe
