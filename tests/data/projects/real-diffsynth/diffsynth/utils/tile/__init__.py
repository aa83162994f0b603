from .tile_worker import TileWorker
