from .tiles import Tiles
from .voronoi import VoronoiTiles

__all__ = ['Tiles', 'VoronoiTiles']
