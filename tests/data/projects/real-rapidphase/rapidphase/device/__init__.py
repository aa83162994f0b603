"""Device management utilities."""

from rapidphase.device.manager import DeviceManager

__all__ = ["DeviceManager"]
