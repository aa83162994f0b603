from __future__ import annotations

from ._autocorr import spatial_autocorr
from ._co_oc import co_occurrence
from ._ligrec import ligrec
