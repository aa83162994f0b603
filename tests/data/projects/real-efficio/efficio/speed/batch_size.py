"""Planned for a future release: automatic batch size with out-of-memory recovery.

Nothing in this module is usable yet; any name looked up here raises NotImplementedError.
"""

from .._planned import planned

__getattr__ = planned(__name__)
