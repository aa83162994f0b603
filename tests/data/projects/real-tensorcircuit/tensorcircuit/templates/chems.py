"""
Useful utilities for quantum chemistry related task
"""

from .conversions import get_ps  # pylint:disable=unused-import

# backward compatibility for the entry point
