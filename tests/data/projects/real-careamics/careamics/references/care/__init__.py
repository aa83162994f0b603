"""CARE citation and references."""

from .citations import CARE_REF
from .descriptions import CARE, CARE_DESCRIPTION

__all__ = [
    "CARE",
    "CARE_DESCRIPTION",
    "CARE_REF",
]
