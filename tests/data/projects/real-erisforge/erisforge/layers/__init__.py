__docformat__ = "restructuredtext"

from .layers import (
    AblationDecoderLayer,
    AdditionDecoderLayer,
)

__all__ = [
    "AdditionDecoderLayer",
    "AblationDecoderLayer",
]
