from .Wormhole import Wormhole  # noqa: F401
from .SpatialWormhole import SpatialWormhole  # noqa: F401