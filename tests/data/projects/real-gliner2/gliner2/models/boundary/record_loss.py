"""Compatibility imports for record training losses.

The implementation lives in :mod:`gliner2.models.boundary.records`.
"""

from gliner2.models.boundary.records import compute_group_loss

__all__ = ["compute_group_loss"]
