"""Serialization helpers."""

from .serialization import (
    load_config_json,
    load_json,
    load_network_json,
    load_registry_json,
    load_template_json,
    save_config_json,
    save_json,
    save_network_json,
    save_registry_json,
    save_template_json,
)

__all__ = [
    "load_config_json",
    "load_json",
    "load_network_json",
    "load_registry_json",
    "load_template_json",
    "save_config_json",
    "save_json",
    "save_network_json",
    "save_registry_json",
    "save_template_json",
]
