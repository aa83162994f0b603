"""Additional supports routines."""

from .data import get_brainweb_map, fse_simulation
from .field_map import (
    make_b0map,
    make_t2smap,
    get_orc_factorization,
    get_complex_fieldmap_rad,
)
from .smaps import low_frequency, get_smaps

__all__ = [
    "fse_simulation",
    "get_brainweb_map",
    "get_smaps",
    "low_frequency",
    "make_b0map",
    "make_t2smap",
    "get_orc_factorization",
    "get_complex_fieldmap_rad",
]
