from .oagbert import oagbert

__all__ = [
    "oagbert",
]
