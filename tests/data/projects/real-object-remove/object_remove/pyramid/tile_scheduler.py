"""Tile/slice rendering.

This is an *independent* knob from the resolution pyramid: it tiles the
*render* to cap peak memory on very large images, distinct from coarse to fine
search. It partitions a region into overlapping tiles that a compositor can
render one at a time and stitch, with the overlap feathered so tile seams
don't show. Generic tiling infrastructure -- ``render_tiled``/
``render_tiled_where``/``render_tiled_region`` for blended compositing,
``process_tiled`` for tiling-independent per tile processing, ``crop_tile``
for a plain crop -- shared by any feature that needs tiling rather than each
reimplementing its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, List, Tuple

import numpy as np


@dataclass
class Tile:
    x0: int
    y0: int
    x1: int  # exclusive
    y1: int  # exclusive
    overlap: int  # halo width included in [x0,x1)/[y0,y1) on each interior side


@dataclass
class TileScheduler:
    tile_size: int = 512
    overlap: int = 32

    def plan(self, width: int, height: int) -> List[Tile]:
        """Partition (width, height) into overlapping tiles."""
        tiles: List[Tile] = []
        step = max(1, self.tile_size - self.overlap)
        ys = list(range(0, height, step))
        xs = list(range(0, width, step))
        for y in ys:
            for x in xs:
                x0 = max(0, x - self.overlap)
                y0 = max(0, y - self.overlap)
                x1 = min(width, x + self.tile_size)
                y1 = min(height, y + self.tile_size)
                tiles.append(Tile(x0, y0, x1, y1, self.overlap))
                if x1 >= width:
                    break
            if y1 >= height:
                break
        return tiles

    def render_tiled(self, width: int, height: int, channels: int,
                     render_tile: Callable[[Tile], np.ndarray]) -> np.ndarray:
        """Render each tile and blend overlaps with a linear feather.

        ``render_tile(tile)`` must return an array shaped
        ``(tile.y1-tile.y0, tile.x1-tile.x0, channels)``.
        """
        acc = np.zeros((height, width, channels), dtype=np.float64)
        wacc = np.zeros((height, width, 1), dtype=np.float64)
        for tile in self.plan(width, height):
            patch = render_tile(tile)
            w = self._feather_weights(tile)
            acc[tile.y0:tile.y1, tile.x0:tile.x1] += patch * w[:, :, None]
            wacc[tile.y0:tile.y1, tile.x0:tile.x1] += w[:, :, None]
        wacc[wacc == 0] = 1.0
        return acc / wacc

    def render_tiled_where(self, selection: np.ndarray, channels: int,
                           render_tile: Callable[[Tile], np.ndarray]) -> np.ndarray:
        """``render_tiled``, but skips any tile whose bounds don't
        intersect ``selection``'s True area -- an efficiency win for a
        sparse/localised selection inside a much larger canvas, since most
        tiles of a big image can be skipped entirely without ever calling
        ``render_tile`` on them."""
        height, width = selection.shape
        acc = np.zeros((height, width, channels), dtype=np.float64)
        wacc = np.zeros((height, width, 1), dtype=np.float64)
        for tile in self.plan(width, height):
            if not selection[tile.y0:tile.y1, tile.x0:tile.x1].any():
                continue
            patch = render_tile(tile)
            w = self._feather_weights(tile)
            acc[tile.y0:tile.y1, tile.x0:tile.x1] += patch * w[:, :, None]
            wacc[tile.y0:tile.y1, tile.x0:tile.x1] += w[:, :, None]
        wacc[wacc == 0] = 1.0
        return acc / wacc

    def render_tiled_region(self, x0: int, y0: int, x1: int, y1: int, channels: int,
                            render_tile: Callable[[Tile], np.ndarray]) -> np.ndarray:
        """``render_tiled`` scoped to an arbitrary sub rect of a larger
        canvas: ``render_tile`` still receives tiles in the caller's
        absolute coordinate frame (so it can index into the full image),
        but only that rect gets tiled/rendered/returned."""
        def offset_render(tile: Tile) -> np.ndarray:
            abs_tile = Tile(tile.x0 + x0, tile.y0 + y0, tile.x1 + x0, tile.y1 + y0, tile.overlap)
            return render_tile(abs_tile)
        return self.render_tiled(x1 - x0, y1 - y0, channels, offset_render)

    def process_tiled(self, width: int, height: int,
                      process_tile: Callable[[Tile], np.ndarray]) -> np.ndarray:
        """Tiled processing *without* feather blending: each tile gets
        ``overlap`` pixels of halo context, but only its non overlap core
        region is pasted into the output, so tiles never blend into (and
        never need to agree with) their neighbours' output -- the right
        shape for a per tile op whose result should be tiling independent
        (e.g. a per pixel classification/mask pass), unlike
        :meth:`render_tiled`'s smoothly blended compositing.
        """
        step = max(1, self.tile_size - self.overlap)
        out: np.ndarray | None = None
        y = 0
        while y < height:
            y1_core = min(height, y + step)
            x = 0
            while x < width:
                x1_core = min(width, x + step)
                x0t = max(0, x - self.overlap)
                y0t = max(0, y - self.overlap)
                x1t = min(width, x + self.tile_size)
                y1t = min(height, y + self.tile_size)
                tile = Tile(x0t, y0t, x1t, y1t, self.overlap)
                patch = process_tile(tile)
                if out is None:
                    out = np.zeros((height, width) + patch.shape[2:], dtype=patch.dtype)
                out[y:y1_core, x:x1_core] = patch[y - y0t:y1_core - y0t, x - x0t:x1_core - x0t]
                x += step
            y += step
        return out if out is not None else np.zeros((height, width), dtype=np.float64)

    @staticmethod
    def crop_tile(image: np.ndarray, tile: Tile) -> np.ndarray:
        return image[tile.y0:tile.y1, tile.x0:tile.x1].copy()

    @staticmethod
    def _feather_weights(tile: Tile) -> np.ndarray:
        h = tile.y1 - tile.y0
        w = tile.x1 - tile.x0
        overlap_px = max(1, tile.overlap)
        weights_y = np.ones(h)
        weights_x = np.ones(w)
        ramp = (np.arange(overlap_px) + 1) / (overlap_px + 1)
        weights_y[:overlap_px] = np.minimum(weights_y[:overlap_px], ramp)
        weights_y[-overlap_px:] = np.minimum(weights_y[-overlap_px:], ramp[::-1])
        weights_x[:overlap_px] = np.minimum(weights_x[:overlap_px], ramp)
        weights_x[-overlap_px:] = np.minimum(weights_x[-overlap_px:], ramp[::-1])
        return np.outer(weights_y, weights_x)
