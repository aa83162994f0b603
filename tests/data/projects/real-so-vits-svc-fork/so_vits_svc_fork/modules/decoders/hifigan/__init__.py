from ._models import NSFHifiGANGenerator

__all__ = ["NSFHifiGANGenerator"]
