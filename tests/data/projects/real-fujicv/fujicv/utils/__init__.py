"""Utility modules for FujiCV."""

from fujicv.utils.config import load_config, load_dataset_config, save_resolved_config
from fujicv.utils.registry import Registry
from fujicv.utils.seed import set_seed

__all__ = [
    "Registry",
    "set_seed",
    "load_config",
    "load_dataset_config",
    "save_resolved_config",
]
