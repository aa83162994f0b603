__docformat__ = "restructuredtext"

from .eris_forge import (
    Forge,
)

__all__ = [
    "Forge",
]
