"""Presets for end-to-end model training for special tasks."""

__all__ = [
    "base",
    "tabular_presets",
    "image_presets",
    "text_presets",
    "whitebox_presets",
]
