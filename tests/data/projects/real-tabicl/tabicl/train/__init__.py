"""CLI entry point subpackage.

This subpackage exists only to support ``python -m tabicl.train``. Importing
from ``tabicl.train.*`` in Python code is NOT public API and may change
without notice.
"""

__all__ = []
