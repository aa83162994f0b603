from .barycenter import FUGWBarycenter
from .dense import FUGW
from .sparse import FUGWSparse

__all__ = ["FUGW", "FUGWBarycenter", "FUGWSparse"]
