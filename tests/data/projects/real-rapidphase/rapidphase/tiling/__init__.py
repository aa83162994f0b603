"""Tiling utilities for large image processing."""

from rapidphase.tiling.tile_manager import TileManager

__all__ = ["TileManager"]
