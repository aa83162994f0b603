from .shared import BackboneRegistry
from .ncsnpp import NCSNpp
from .ncsnpp_v2 import NCSNpp_v2
from .ncsnpp_48k import NCSNpp_48k
from .dcunet import DCUNet

__all__ = ['BackboneRegistry', 'NCSNpp', 'NCSNpp_v2', 'NCSNpp_48k', 'DCUNet']
