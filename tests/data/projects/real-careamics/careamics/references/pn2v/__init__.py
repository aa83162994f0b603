"""PN2V citation and references."""

from .citations import N2V2_REF, PN2V_REF, STRUCTN2V_REF
from .descriptions import (
    PN2V,
    PN2V2,
    PN2V2_DESCRIPTION,
    PN2V_DESCRIPTION,
    STRUCT_PN2V,
    STRUCT_PN2V2,
    STRUCT_PN2V2_DESCRIPTION,
    STRUCT_PN2V_DESCRIPTION,
)

__all__ = [
    "N2V2_REF",
    "PN2V",
    "PN2V2",
    "PN2V2_DESCRIPTION",
    "PN2V_DESCRIPTION",
    "PN2V_REF",
    "STRUCTN2V_REF",
    "STRUCT_PN2V",
    "STRUCT_PN2V2",
    "STRUCT_PN2V2_DESCRIPTION",
    "STRUCT_PN2V_DESCRIPTION",
]
