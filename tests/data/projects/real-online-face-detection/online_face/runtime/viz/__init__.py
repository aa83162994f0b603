"""Visualization overlays (lazy highgui)."""
from __future__ import annotations

from .draw import draw_box_label, draw_hud, draw_points, hash_color, legible_text_color

__all__ = ["draw_box_label", "draw_hud", "draw_points", "hash_color", "legible_text_color"]
