from .cost import TilePlan
from .device import Device, resolve_device

__all__ = ["Device", "TilePlan", "resolve_device"]
