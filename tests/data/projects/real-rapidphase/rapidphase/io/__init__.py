"""I/O utilities for phase unwrapping."""

from rapidphase.io.raster import (
    read_phase,
    write_phase,
    read_coherence,
)

__all__ = [
    "read_phase",
    "write_phase",
    "read_coherence",
]
