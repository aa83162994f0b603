from .adalomo import AdaLomo
from .lomo import Lomo

__version__ = "0.1.1"
__all__ = ["Lomo", "AdaLomo"]
