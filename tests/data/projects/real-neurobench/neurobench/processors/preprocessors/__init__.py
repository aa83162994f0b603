from .mfcc import MFCCPreProcessor
from .speech2spikes import S2SPreProcessor

__all__ = ["MFCCPreProcessor", "S2SPreProcessor"]
