from .na1d import NA1DAVFunction, NA1DQKFunction, NeighborhoodAttention1DFunction
from .na2d import NA2DAVFunction, NA2DQKFunction, NeighborhoodAttention2DFunction
from .na3d import NA3DAVFunction, NA3DQKFunction, NeighborhoodAttention3DFunction

__all__ = [
    "NeighborhoodAttention1DFunction",
    "NeighborhoodAttention2DFunction",
    "NeighborhoodAttention3DFunction",
    "NA1DQKFunction",
    "NA1DAVFunction",
    "NA2DQKFunction",
    "NA2DAVFunction",
    "NA3DQKFunction",
    "NA3DAVFunction",
]
