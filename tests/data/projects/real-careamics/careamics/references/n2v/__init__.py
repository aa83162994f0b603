"""N2V algorithm references and descriptions."""

from .citations import N2V2_REF, N2V_REF, STRUCTN2V_REF
from .descriptions import (
    N2V,
    N2V2,
    N2V2_DESCRIPTION,
    N2V_DESCRIPTION,
    STR_N2V2_DESCRIPTION,
    STR_N2V_DESCRIPTION,
    STRUCT_N2V,
    STRUCT_N2V2,
)

__all__ = [
    "N2V",
    "N2V2",
    "N2V2_DESCRIPTION",
    "N2V2_REF",
    "N2V_DESCRIPTION",
    "N2V_REF",
    "STRUCTN2V_REF",
    "STRUCT_N2V",
    "STRUCT_N2V2",
    "STR_N2V2_DESCRIPTION",
    "STR_N2V_DESCRIPTION",
]
