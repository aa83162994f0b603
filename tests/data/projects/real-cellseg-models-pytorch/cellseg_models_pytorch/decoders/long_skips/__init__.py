from .longskip_module import LongSkip
from .stem_skip import StemSkip

__all__ = ["LongSkip", "StemSkip"]
