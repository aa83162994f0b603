"""MOSS-Image transformer re-implementation."""

from kohakumoss.model.backbone import MossBackbone
from kohakumoss.model.build import build_backbone, resolve_config
from kohakumoss.model.io import load_backbone, save_diffusers, save_single
from kohakumoss.model.runner import PlainRunner

__all__ = [
    "MossBackbone",
    "PlainRunner",
    "build_backbone",
    "load_backbone",
    "resolve_config",
    "save_diffusers",
    "save_single",
]
