from .ray_searcher import RaySearcher
