"""Adapters over the lycoris-lora package: targeting, bound forwards, export, inference."""

from kohakumoss.adapters.lycoris import version as lycoris_version  # isort: split

from kohakumoss.adapters.build.apply import apply
from kohakumoss.adapters.build.config import AdapterConfig, config_from_knobs
from kohakumoss.adapters.build.presets import BASES, MODIFIERS, resolve_preset
from kohakumoss.adapters.infer.inference import (
    AdapterStack,
    describe,
    load,
    load_adapters,
)
from kohakumoss.adapters.kinds import Kind, register
from kohakumoss.adapters.train.adapter_set import FORMATS, LycoAdapterSet
from kohakumoss.adapters.train.tlora import set_token_mask, token_mask

LYCORIS_MIN = lycoris_version.LYCORIS_MIN

__all__ = [
    "BASES",
    "FORMATS",
    "LYCORIS_MIN",
    "MODIFIERS",
    "AdapterConfig",
    "AdapterStack",
    "Kind",
    "LycoAdapterSet",
    "apply",
    "config_from_knobs",
    "describe",
    "load",
    "load_adapters",
    "register",
    "resolve_preset",
    "set_token_mask",
    "token_mask",
]
