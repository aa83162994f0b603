"""ORIGAMI utilities."""

from .device import auto_device, available_devices, get_device
from .schema import format_schema, truncate_schema_enums

__all__ = [
    "auto_device",
    "available_devices",
    "format_schema",
    "get_device",
    "truncate_schema_enums",
]
