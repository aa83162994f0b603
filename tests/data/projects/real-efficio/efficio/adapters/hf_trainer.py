"""Planned for a future release: a callback for the Hugging Face Trainer.

Nothing in this module is usable yet; any name looked up here raises NotImplementedError.
"""

from .._planned import planned

__getattr__ = planned(__name__)
