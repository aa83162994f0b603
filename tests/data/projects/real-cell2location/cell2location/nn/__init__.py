from .fclayers import FCLayers

__all__ = ["FCLayers"]
