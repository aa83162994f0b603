__all__ = ["find_tissues", "tile_graph", "tile_tissues"]

from ._graph import tile_graph
from ._tiles import tile_tissues
from ._tissue import find_tissues
