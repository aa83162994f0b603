"""GotenNet: A machine learning model for molecular property prediction."""

__version__ = "1.1.2"

from gotennet.models.representation.gotennet import (
    EQFF,  # noqa: F401
    GATA,  # noqa: F401
    GotenNet,  # noqa: F401
    GotenNetWrapper,  # noqa: F401
)


