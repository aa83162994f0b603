"""Planned for a future release: Telegram and email notifications when a run finishes or crashes.

Nothing in this module is usable yet; any name looked up here raises NotImplementedError.
"""

from .._planned import planned

__getattr__ = planned(__name__)
