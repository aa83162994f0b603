from .plane_filter import TileProcessor
