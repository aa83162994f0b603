"""Human sizes for the keep budget: "256MB", "1.5GiB", 1_000_000, 0 (stats only)."""

from __future__ import annotations

import re

_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$")


def parse_size(size: str | int | None) -> int:
    """Bytes in ``size`` (None or 0: nothing kept).

    Raises:
        ValueError: not a size.
    """
    if size is None:
        return 0
    if isinstance(size, bool):
        raise ValueError(f"not a size: {size!r}")
    if isinstance(size, int):
        if size < 0:
            raise ValueError(f"size must not be negative: {size}")
        return size
    match = _SIZE.match(str(size))
    if match is None or match.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {size!r} (e.g. 256MB, 1GiB, 0)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])
