"""Checkpoint I/O: HF / ComfyUI / own formats in, single-file / fused / diffusers out."""

from kohakumoss.model.io.load import LoadReport, load_backbone, load_state_into
from kohakumoss.model.io.save import save_diffusers, save_single, write_diffusers

__all__ = [
    "LoadReport",
    "load_backbone",
    "load_state_into",
    "save_diffusers",
    "save_single",
    "write_diffusers",
]
