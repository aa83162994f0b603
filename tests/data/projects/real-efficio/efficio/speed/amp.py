"""Planned for a future release: mixed precision helpers beyond Run.autocast.

Nothing in this module is usable yet; any name looked up here raises NotImplementedError.
"""

from .._planned import planned

__getattr__ = planned(__name__)
