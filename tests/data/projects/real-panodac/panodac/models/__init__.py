"""Model components for panodac."""

from .idisc import IDisc
from .idisc_erp import IDiscERP

__all__ = ["IDisc", "IDiscERP"]
