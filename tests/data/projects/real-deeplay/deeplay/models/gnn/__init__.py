from .mpm import MPM
from .gtogmpm import GraphToGlobalMPM, GlobalMeanPool
from .gtonmpm import GraphToNodeMPM
from .gtoempm import GraphToEdgeMPM
from .gtoeMAGIK import GraphToEdgeMAGIK
