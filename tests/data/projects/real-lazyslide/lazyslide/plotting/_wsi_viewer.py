from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from importlib.util import find_spec
from itertools import cycle
from numbers import Number
from typing import TYPE_CHECKING, Any, Literal

import cv2
import geopandas as gpd
import numpy as np
import pandas as pd
from shapely import MultiPolygon, Polygon, box, get_parts
from wsidata import TileSpec, WSIData
from wsidata.reader import ReaderBase

from .._utils import find_stack_level

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.patches import Patch
    from matplotlib.typing import ColorType

    PaletteType = dict | Sequence[ColorType] | ColorType

LAZYSLIDE_PALETTE = (
    "#e60049",
    "#0bb4ff",
    "#50e991",
    "#e6d800",
    "#9b19f5",
    "#ffa300",
    "#dc0ab4",
    "#b3d4ff",
    "#00bfa0",
)


@dataclass
class Viewport:
    """
    The dataclass to store view port of the slide.

    Attributes
    ----------
    x : int
        The x-coordinate of the window.
    y : int
        The y-coordinate of the window.
    w : int
        The width of the window.
    h : int
        The height of the window.
    level : int
        The level of the pyramid to view.
    downsample : int
        The downsample factor of the window.
    w0 : int
        The exact width of the window in level 0 pixels.
        Invariant to the chosen pyramid level, so the displayed extent
        never drifts when the image resolution changes.
    h0 : int
        The exact height of the window in level 0 pixels.

    """

    x: int
    y: int
    w: int
    h: int
    level: int
    downsample: float
    w0: int = None
    h0: int = None

    def __post_init__(self):
        # Default the exact level-0 region to the (downsampled) read size.
        # Carrying it explicitly avoids integer-floor drift between
        # w*downsample and the original region when the level changes.
        if self.w0 is None:
            self.w0 = int(self.w * self.downsample)
        if self.h0 is None:
            self.h0 = int(self.h * self.downsample)

    @cached_property
    def box(self) -> Polygon:
        """Return the window in shapely polygon."""

        return box(
            self.x,
            self.y,
            self.x + self.w0,
            self.y + self.h0,
        )


class DataSource:
    """The base class for data sources.

    Attributes
    ----------
    viewport : Viewport
        The current viewport.
    _sel : np.ndarray
        The selection mask of the data depending on the viewport.
    _sel_attrs : dict
        The selection of data depending on the viewport.
    """

    # Type hinting for class attributes (defaults handled in __init__)
    viewport: Viewport | None
    _sel: np.ndarray[Any, np.dtype[np.bool_]] | None
    _sel_attrs: dict

    def __init__(self, viewport: Viewport | None = None):
        """
        Initialize the Data Source.

        Parameters
        ----------
        viewport : Viewport, optional
            The initial viewport state. Defaults to None.
        """
        self.viewport = viewport
        self._sel = None

        # CORRECT INTIALIZATION:
        # Creating the dictionary inside __init__ ensures every instance
        # gets its own unique dictionary.
        self._sel_attrs = {}

    def set_viewport_hook(self):
        """
        The hook that runs if the viewport is updated.
        """

    def set_viewport(self, viewport: Viewport):
        if self.viewport == viewport:
            return
        self.viewport = viewport
        self.set_viewport_hook()

    def set_data(self, **kwargs):
        """
        If there are data that depends on the viewport, set them here.
        """
        for k, v in kwargs.items():
            if v is not None:
                v = np.asarray(v)
            self._sel_attrs.update({k: v})

    def get_data(self, k):
        """
        Get the data that depends on the viewport during rendering.
        """
        d = self._sel_attrs.get(k)
        if (d is not None) and (self._sel is not None):
            return d[self._sel]
        else:
            return d


class ImageDataSource(DataSource):
    def __init__(self, reader: ReaderBase):
        super().__init__()
        self.reader = reader
        self._image = None
        self._refresh = False

    def set_viewport_hook(self):
        self._refresh = True

    @property
    def image(self):
        # Must be lazy evaluated at render time to avoid loading the image multiple times
        if self._image is None or self._refresh:
            x, y, w, h = (
                self.viewport.x,
                self.viewport.y,
                self.viewport.w,
                self.viewport.h,
            )
            self._image = self.reader.get_region(x, y, w, h, level=self.viewport.level)
            self._refresh = False
        return self._image

    def get_image_size(self) -> tuple[int, int]:
        """Return the width, height of the actual image, not the data.

        This is the level 0 region size, which is invariant to the chosen
        pyramid level.
        """
        return int(self.viewport.w0), int(self.viewport.h0)

    def get_extent(self):
        x, y = self.viewport.x, self.viewport.y
        w, h = self.get_image_size()

        return [x, x + w, y + h, y]


class TileDataSource(DataSource):
    # Above this many tile lattices, stop treating the tiles as a grid.
    MAX_LATTICES = 32

    def __init__(self, tiles: np.ndarray, tile_spec: TileSpec):
        # tiles are expected as top-left coordinates at level 0 (base) in pixels
        super().__init__()
        self._tiles = np.asarray(tiles, dtype=int)
        self.tile_spec = tile_spec
        self._sel = np.ones(len(self._tiles), dtype=bool)
        self._render_tiles = self._tiles

    def set_viewport_hook(self):
        # Fast bbox culling without shapely for tile rectangles against viewport box
        xmin, ymin, xmax, ymax = self.viewport.box.bounds
        W0, H0 = self.tile_shape_base
        X = self._tiles[:, 0]
        Y = self._tiles[:, 1]
        sel = (X < xmax) & (X + W0 > xmin) & (Y < ymax) & (Y + H0 > ymin)
        self._sel = sel
        self._render_tiles = self._tiles[sel].astype(int)

    @property
    def tiles(self):
        return self._render_tiles

    def grid_layouts(self):
        """Map the rendered tiles onto low-resolution grids (one cell/tile).

        Yields ``(sel, gy, gx, grid_height, grid_width, extent)``, where
        ``sel`` picks the group out of the rendered tiles and ``extent`` is
        ``[left, right, bottom, top]`` for ``imshow(origin="upper")``.
        """
        base_w, base_h = self.tile_shape_base
        pitch_w, pitch_h = self.tile_stride_base
        tiles = self._render_tiles
        # Tiles of one lattice share their offset within the stride.
        lattice = np.unique(
            np.column_stack((tiles[:, 0] % pitch_w, tiles[:, 1] % pitch_h)),
            axis=0,
            return_inverse=True,
        )[1].ravel()
        if lattice.max() + 1 > self.MAX_LATTICES:
            # ponytail: tiles that share no lattice at all (hand-made tile
            # shapes) would be one grid each, so put them on a single grid and
            # let them snap to it. Group them geometrically if it ever matters.
            lattice = np.zeros(len(tiles), dtype=int)

        for k in range(lattice.max() + 1):
            sel = lattice == k
            tx, ty = tiles[sel, 0], tiles[sel, 1]
            x_anchor, y_anchor = tx.min(), ty.min()
            # Round, don't floor: within a lattice the offsets are exact
            # multiples of the stride, and flooring a hair below would put the
            # tile in the cell before it.
            gx = np.rint((tx - x_anchor) / pitch_w).astype(int)
            gy = np.rint((ty - y_anchor) / pitch_h).astype(int)
            gw = int(gx.max()) + 1
            gh = int(gy.max()) + 1
            # Cells are stride-sized and centered on their tile: no shift when
            # tiles don't overlap, and contiguous cells when they do.
            x0 = x_anchor + (base_w - pitch_w) / 2
            y0 = y_anchor + (base_h - pitch_h) / 2
            yield sel, gy, gx, gh, gw, [x0, x0 + gw * pitch_w, y0 + gh * pitch_h, y0]

    @property
    def tiles_center(self):
        """Return the center of the tiles at level 0."""
        tiles = self._render_tiles.copy()
        tile_width, tile_height = self.tile_shape_base
        tiles[:, 0] = tiles[:, 0] + int(tile_width // 2)
        tiles[:, 1] = tiles[:, 1] + int(tile_height // 2)
        return tiles

    @property
    def tile_shape_base(self) -> tuple[int, int]:
        """The W, H of the tile at level 0."""
        return self.tile_spec.base_width, self.tile_spec.base_height

    @property
    def tile_stride_base(self) -> tuple[int, int]:
        """The W, H of the tile stride at level 0, ie. the lattice pitch."""
        return self.tile_spec.base_stride_width, self.tile_spec.base_stride_height


class PolygonDataSource(DataSource):
    def __init__(self, polygons: list[Polygon]):
        super().__init__()
        self._polygons = polygons
        self._render_polygons = polygons
        self._sel = np.ones_like(polygons, dtype=bool)

    def set_viewport_hook(self):
        box = self.viewport.box
        sel = box.intersects(self._polygons)
        self._render_polygons = self._polygons[sel]
        self._sel = sel

    @property
    def polygons(self):
        return self._render_polygons


class RenderPlan:
    """
    The base class for rendering plans.

    Attributes
    ----------
    datasource : DataSource
        The data source for the rendering plan.
    zoom_view_visible : bool
        Whether the plan is rendered in the zoom view.

    """

    datasource: DataSource
    zoom_view_visible: bool = True
    legend_visible: bool = True
    on_zoom_view: bool = False
    legend: Artist | None = None

    def render(self, ax):
        """The rendering logics of the plan."""

    def get_legend(self) -> Artist | None:
        """Return the legend of the plan."""
        return self.legend


class SlideImageRenderPlan(RenderPlan):
    """
    The rendering plan for the slide image.

    Parameters
    ----------
    datasource : ImageDataSource
        The image data source for the rendering plan.

    """

    def __init__(self, datasource: ImageDataSource):
        self.datasource: ImageDataSource = datasource

    def render(self, ax):
        image = self.datasource.image
        extent = self.datasource.get_extent()
        ax.imshow(image, extent=extent, origin="upper", zorder=-100)


class ScaleBarRenderPlan(RenderPlan):
    def __init__(self, datasource: ImageDataSource, dx=None, units="um", **kwargs):
        self.datasource: ImageDataSource = datasource
        self.dx = dx
        self.units = units
        self.kwargs = kwargs

    def render(self, ax):
        if self.dx is None:
            return

        from matplotlib_scalebar.scalebar import ScaleBar

        scalebar = ScaleBar(self.dx, units=self.units, **self.kwargs)
        ax.add_artist(scalebar)


class OriginXYArrowRenderPlan(RenderPlan):
    def __init__(self, length=30, linewidth=1, color="k", **kwargs):
        self.length = length
        self.kwargs = kwargs
        self._arrow_props = {
            "arrowstyle": "<|-",
            "shrinkA": 0,
            "shrinkB": 0,
            "color": color,
            "linewidth": linewidth,
        }
        self._annotate_props = {
            "xy": (0, 1),
            "xycoords": "axes fraction",
            "textcoords": "offset points",
            "va": "center",
            "ha": "center",
            "arrowprops": self._arrow_props,
        }

    def render(self, ax):
        ax.annotate("x", xytext=(self.length, 0), **self._annotate_props)
        ax.annotate("y", xytext=(0, -self.length), **self._annotate_props)


class HeatmapTilesRenderPlan(RenderPlan):
    def __init__(
        self,
        tile_datasource: TileDataSource,
        values: np.ndarray,
        palette: dict | None = None,
        cmap="coolwarm",
        norm=None,
        vmin=None,
        vmax=None,
        alpha=0.7,
        smooth=False,
        smooth_scale=2,
        legend_kws=None,
    ):
        self.datasource: TileDataSource = tile_datasource
        from matplotlib.colors import ListedColormap

        # If is categorical
        if palette is not None:
            # encode values into numerical and create a cmap from palette
            values = pd.Categorical(values)
            cmap = ListedColormap([palette[c] for c in values.categories])
            values = values.codes

        self.datasource.set_data(values=values)
        self.palette = palette
        self.cmap = cmap
        self.norm = norm
        self.vmin = vmin
        self.vmax = vmax
        self.alpha = alpha
        self.smooth = smooth
        self.smooth_scale = smooth_scale
        self.legend_kws = legend_kws or {}

    def render(self, ax):
        # Paint values onto a small per-tile grid (one cell per tile) instead
        # of a full viewport-resolution canvas. The grid is colorized once and
        # upscaled by the renderer via the grid extent. This avoids the old
        # per-tile Python loop and the very large GaussianBlur kernel.
        if len(self.datasource.tiles) == 0:
            return
        vs = self.datasource.get_data("values")

        import matplotlib.pyplot as plt
        from legendkit import cat_legend, colorart
        from matplotlib.cm import ScalarMappable

        cmap = plt.get_cmap(self.cmap)
        sm = ScalarMappable(norm=self.norm, cmap=cmap)
        sm.set_clim(self.vmin, self.vmax)
        # Pin the color scale on every value up front, so lattices drawn as
        # separate grids below don't each autoscale to their own range.
        sm.set_array(vs)
        sm.autoscale_None()

        if self.smooth:
            # Cheap blur on the small grid; smoothing on upscale is done by the
            # renderer's interpolation, replacing the old full-size GaussianBlur.
            ksize = max(1, int(self.smooth_scale))
            ksize = ksize if ksize % 2 == 1 else ksize + 1
            interpolation = "bilinear"
        else:
            ksize = 1
            interpolation = "nearest"

        for sel, gy, gx, gh, gw, extent in self.datasource.grid_layouts():
            grid = np.full((gh, gw), np.nan)
            grid[gy, gx] = vs[sel]

            A = sm.to_rgba(grid, bytes=True, alpha=self.alpha)
            # Transparent background where there is no tile.
            A[np.isnan(grid), 3] = 0
            if ksize > 1:
                A = cv2.GaussianBlur(A, (ksize, ksize), 0)

            ax.imshow(
                A,
                extent=extent,
                origin="upper",
                zorder=-99,
                interpolation=interpolation,
            )
        if not self.on_zoom_view:
            if self.palette is not None:
                self.legend = cat_legend(
                    colors=self.palette.values(),
                    labels=self.palette.keys(),
                    **self.legend_kws,
                )
            else:
                self.legend = colorart(sm, **self.legend_kws)


class ScatterTilesRenderPlan(RenderPlan):
    def __init__(
        self,
        datasource: TileDataSource,
        values: np.ndarray,
        palette: dict | None = None,
        cmap="coolwarm",
        norm=None,
        vmin=None,
        vmax=None,
        alpha=1.0,
        size=None,
        zoom_size=None,
        marker="o",
        rasterized=True,
        legend_kws=None,
    ):
        self.datasource: TileDataSource = datasource
        from matplotlib.colors import ListedColormap

        # If is categorical
        if palette is not None:
            # encode values into numerical and create a cmap from palette
            values = pd.Categorical(values)
            cmap = ListedColormap([palette[c] for c in values.categories])
            values = values.codes

        self.datasource.set_data(values=values)
        self.palette = palette
        self.cmap = cmap
        self.norm = norm
        self.vmin = vmin
        self.vmax = vmax
        self.alpha = alpha
        self.size = size
        self.zoom_size = zoom_size
        self.marker = marker
        self.rasterized = rasterized
        self.legend_kws = legend_kws or {}

    def render(self, ax):
        from legendkit import cat_legend, colorart

        tiles = self.datasource.tiles_center
        values = self.datasource.get_data("values")
        # Determine the size of the scatter points
        s = self.zoom_size if self.on_zoom_view else self.size
        if s is None:
            s = 12000 / len(tiles)
        sm = ax.scatter(
            tiles[:, 0],
            tiles[:, 1],
            c=values,
            cmap=self.cmap,
            norm=self.norm,
            vmin=self.vmin,
            vmax=self.vmax,
            s=s,
            marker=self.marker,
            alpha=self.alpha,
            rasterized=self.rasterized,
        )
        if not self.on_zoom_view:
            if self.palette is not None:
                self.legend = cat_legend(
                    colors=self.palette.values(),
                    labels=self.palette.keys(),
                    **self.legend_kws,
                )
            else:
                self.legend = colorart(sm, **self.legend_kws)


class GridTilesRenderPlan(RenderPlan):
    def __init__(
        self,
        datasource: TileDataSource,
        color="k",
        linewidth=0.1,
    ):
        self.datasource: TileDataSource = datasource
        self.color = color
        self.linewidth = linewidth

    def render(self, ax):
        from matplotlib.collections import PatchCollection
        from matplotlib.patches import Rectangle

        width, height = self.datasource.tile_shape_base
        patches = []
        for x, y in self.datasource.tiles:
            patches.append(Rectangle(xy=(x, y), width=width, height=height))
        ax.add_collection(
            PatchCollection(
                patches, facecolor="none", edgecolor=self.color, lw=self.linewidth
            )
        )


class PolygonMixin(RenderPlan):
    def __init__(
        self,
        datasource: PolygonDataSource,
        **data,
    ):
        self.datasource: PolygonDataSource = datasource
        self.datasource.set_data(**data)

    @staticmethod
    def _label_patch(ax, patch: Patch, name, pad=0.1, box_color="white", **kwargs):
        kwargs = {} if kwargs is None else kwargs
        options = {
            "color": "black",
            "fontsize": 8,
            "ha": "center",
            "va": "bottom",
            "bbox": {"facecolor": box_color, "pad": 2, "lw": 1},
        }
        options.update(kwargs)
        # Check if patch is inside the axis limits
        xrange = np.sort(ax.get_xlim())
        yrange = np.sort(ax.get_ylim())
        extent = patch.get_extents()
        extent = patch.get_transform().inverted().transform_bbox(extent)
        in_x = extent.x0 >= xrange[0] and extent.x1 <= xrange[1]
        in_y = extent.y0 >= yrange[0] and extent.y1 <= yrange[1]
        if not in_x or not in_y:
            return
        ax.annotate(name, (0.5, 1 + pad), xycoords=patch, **options)

    @staticmethod
    def _filled_polygon_patch(polygon: Polygon | MultiPolygon, **kwargs):
        """
        Create a matplotlib patch from a shapely polygon.

        """
        from matplotlib.patches import PathPatch
        from matplotlib.path import Path

        if isinstance(polygon, MultiPolygon):
            polys = get_parts(polygon, return_index=False)
        else:
            polys = [polygon]

        patches = []
        for p in polys:
            path = Path.make_compound_path(
                Path(np.asarray(p.exterior.coords)[:, :2]),
                *[Path(np.asarray(ring.coords)[:, :2]) for ring in p.interiors],
            )
            patches.append(PathPatch(path, **kwargs))
        return patches

    @staticmethod
    def _contour_polygon_patch(
        polygon: Polygon | MultiPolygon, outline_kwargs=None, hole_kwargs=None
    ):
        """
        Create a matplotlib patch from a shapely polygon.

        """
        from matplotlib.patches import Polygon as PolygonPatch

        outline_kwargs = {} if outline_kwargs is None else outline_kwargs
        hole_kwargs = {} if hole_kwargs is None else hole_kwargs

        if isinstance(polygon, MultiPolygon):
            polys = get_parts(polygon, return_index=False)
        else:
            polys = [polygon]

        outlines = []
        holes = []
        for p in polys:
            outer = np.asarray(p.exterior.coords)[:, :2]
            inner = [np.asarray(ring.coords)[:, :2] for ring in p.interiors]

            outlines.append(PolygonPatch(outer, **outline_kwargs))
            holes.extend([PolygonPatch(h, **hole_kwargs) for h in inner])
        return outlines, holes


class ContourRenderPlan(PolygonMixin):
    def __init__(
        self,
        polygons: PolygonDataSource,
        labels: Sequence | None = None,
        colors: Sequence | None = None,
        palette: dict | None = None,
        outline_color: ColorType = "#117554",
        hole_color: ColorType = "#4379F2",
        linewidth: int = 1,
        outline_kws=None,
        hole_kws=None,
        legend_kws=None,
    ):
        self.palette = palette
        super().__init__(polygons, labels=labels, colors=colors)

        outline_kws = {} if outline_kws is None else outline_kws
        hole_kws = {} if hole_kws is None else hole_kws

        self.outline_kws = {
            "edgecolor": outline_color,
            "linewidth": linewidth,
            "fill": False,
        }
        self.outline_kws.update(outline_kws)
        self.hole_kws = {"edgecolor": hole_color, "linewidth": linewidth, "fill": False}
        self.hole_kws.update(hole_kws)
        self.legend_kws = legend_kws or {}

    def render(self, ax):
        from legendkit import cat_legend
        from matplotlib.collections import PatchCollection

        colors = self.datasource.get_data("colors")
        labels = self.datasource.get_data("labels")

        # Without labels, batch all patches into one collection to avoid the
        # per-patch add_patch overhead (also speeds up zoom views).
        batch = labels is None
        patches = []
        for ix, contour in enumerate(self.datasource.polygons):
            outline_kwargs = self.outline_kws.copy()
            if colors is not None:
                outline_kwargs["edgecolor"] = colors[ix]
            outlines, holes = self._contour_polygon_patch(
                contour, outline_kwargs=outline_kwargs, hole_kwargs=self.hole_kws
            )
            if batch:
                patches.extend(outlines)
                patches.extend(holes)
            else:
                for outline in outlines:
                    ax.add_patch(outline)
                    self._label_patch(ax, outline, labels[ix])
                for hole in holes:
                    ax.add_patch(hole)

        if patches:
            ax.add_collection(PatchCollection(patches, match_original=True))

        if (self.palette is not None) & (not self.on_zoom_view):
            self.legend = cat_legend(
                colors=self.palette.values(),
                labels=self.palette.keys(),
                **self.legend_kws,
            )


class FilledPolygonRenderPlan(PolygonMixin):
    def __init__(
        self,
        polygons: PolygonDataSource,
        labels: Sequence | None = None,
        colors: Sequence | None = None,
        palette: dict | None = None,
        color="#FFE31A",
        linewidth: int = 1,
        alpha=0.3,
        legend_kws=None,
        **kwargs,
    ):
        self.palette = palette
        self.alpha = alpha

        from matplotlib.colors import is_color_like, to_rgba

        if colors is not None:
            colors = [to_rgba(c, alpha) if is_color_like(c) else c for c in colors]
        super().__init__(polygons, labels=labels, colors=colors)

        self.legend_kws = legend_kws or {}
        self.kwargs = {
            "facecolor": to_rgba(color, alpha),
            "edgecolor": color,
            "linewidth": linewidth,
        }
        if kwargs is not None:
            self.kwargs.update(kwargs)

    def render(self, ax):
        from legendkit import cat_legend
        from matplotlib.collections import PatchCollection

        colors = self.datasource.get_data("colors")
        labels = self.datasource.get_data("labels")

        # Without labels, batch all patches into one collection to avoid the
        # per-patch add_patch overhead (also speeds up zoom views).
        batch = labels is None
        collected = []
        for ix, contour in enumerate(self.datasource.polygons):
            kwargs = self.kwargs.copy()
            if colors is not None:
                c = colors[ix]
                kwargs["facecolor"] = c
                kwargs["edgecolor"] = c
            patches = self._filled_polygon_patch(contour, **kwargs)
            if batch:
                collected.extend(patches)
            else:
                for patch in patches:
                    ax.add_patch(patch)
                    self._label_patch(ax, patch, labels[ix])

        if collected:
            ax.add_collection(PatchCollection(collected, match_original=True))

        if (self.palette is not None) & (not self.on_zoom_view):
            self.legend = cat_legend(
                colors=self.palette.values(),
                labels=self.palette.keys(),
                **self.legend_kws,
            )


class ZoomOnlyFilledPolygonRenderPlan(FilledPolygonRenderPlan):
    """A filled polygon plan that only renders inside a zoom view."""

    def render(self, ax):
        if not self.on_zoom_view:
            return
        super().render(ax)


class DatashaderFilledPolygonRenderPlan(RenderPlan):
    """
    Rasterize filled polygons using Datashader for performance on large datasets.

    Notes
    -----
    - Draws an RGBA image via `imshow` at the current viewport extent.
    - Supports uniform color fill or categorical `color_by` using a `palette` mapping.
    - Intended for base view only; combine with `ZoomOnlyFilledPolygonRenderPlan` for zoom.
    """

    def __init__(
        self,
        shapes: gpd.GeoDataFrame,
        image_datasource: ImageDataSource,
        color_by: str | None = None,
        palette: dict | None = None,
        color: ColorType = "#5CE65C",
        alpha: float = 1,
        legend_kws: dict | None = None,
    ):
        self.shapes = shapes
        self.image_datasource = image_datasource
        self.color_by = color_by
        self.palette = palette
        self.color = color
        self.alpha = alpha
        self.legend_kws = legend_kws or {}
        self.legend = None
        # Hard cap on the datashader canvas; lowered to the displayed size by
        # WSIViewer when display-aware rendering is enabled.
        self.max_px = 4096

    def render(self, ax):
        from legendkit import cat_legend
        from matplotlib.colors import to_hex

        ds = find_spec("datashader")
        if ds is None:
            warnings.warn(
                "Datashader is not installed; falling back to vector polygons.",
                stacklevel=find_stack_level(),
            )
            return
        import datashader as ds
        from datashader import transfer_functions as tf

        # Canvas dimensions and extent based on current image viewport
        extent = self.image_datasource.get_extent()
        x0, x1, y1, y0 = extent  # note: extent is [xmin, xmax, ymax, ymin]
        w, h = self.image_datasource.get_image_size()

        # Safety caps for extremely large canvases
        max_px = self.max_px
        if w > max_px or h > max_px:
            scale = max(w / max_px, h / max_px)
            w = max(1, round(w / scale))
            h = max(1, round(h / scale))

        cvs = ds.Canvas(
            plot_width=int(w),
            plot_height=int(h),
            x_range=(x0, x1),
            y_range=(y0, y1),
        )

        gdf = self.shapes
        if (self.color_by is None) or (self.palette is None):
            agg = cvs.polygons(gdf, geometry="geometry", agg=ds.count())
            fg_hex = to_hex(self.color, keep_alpha=False)
            # For uniform color: treat any coverage as 1 and background as NaN so shading yields a solid color
            # Mask background to NaN and keep NaNs to identify background later
            agg = agg.where(agg > 0)
            # Set all foreground pixels to 1 (keep NaNs for background)
            agg = agg * 0 + 1
            # Use a single-color cmap and linear shading so every foreground pixel is exactly fg_hex
            cmap = [fg_hex, fg_hex]
            img = tf.shade(
                agg,
                cmap=cmap,
                how="linear",
                alpha=round(self.alpha * 255),
                min_alpha=0,
            )
        else:
            # categorical coloring using count_cat
            # Ensure the column is categorical; Datashader's count_cat requires Categorical dtype.
            col = self.color_by
            gdf[col] = gdf[col].astype("category")
            agg = cvs.polygons(gdf, geometry="geometry", agg=ds.by(col, ds.count()))
            # Datashader expects 6-digit hex; we control polygon alpha via the shade alpha param
            color_key = (
                {k: to_hex(v, keep_alpha=False) for k, v in self.palette.items()}
                if self.palette is not None
                else None
            )
            img = tf.shade(
                agg,
                color_key=color_key,
                how="linear",
                alpha=round(self.alpha * 255),
                # Equal to alpha, so overlapping polygons don't turn opaque
                min_alpha=round(self.alpha * 255),
            )

            # set legend for base view only
            if not self.on_zoom_view and self.palette is not None:
                self.legend = cat_legend(
                    colors=self.palette.values(),
                    labels=self.palette.keys(),
                    **self.legend_kws,
                )

        # Convert polygon image to numpy array and draw
        arr = np.asarray(img.to_pil())
        ax.imshow(arr, extent=extent, origin="lower", zorder=-50)


class ZoomRenderPlan(RenderPlan):
    # See example:
    # https://matplotlib.org/stable/gallery/subplots_axes_and_figures/zoom_inset_axes.html

    # Optional callback (set by WSIViewer) to resolve the zoom image pyramid
    # level from the inset size before rendering the zoom plans.
    _resolve_zoom = None

    def __init__(
        self,
        image_datasource: ImageDataSource,  # Which image to subscribe to
        x_range: tuple[int, int],
        y_range: tuple[int, int],
        anchor: tuple[float, float] = (1.2, 0),
        size: tuple[float, float] = (1, 1),
        axis="on",
        xaxis="top",
        edgecolor="k",
        alpha=0.5,
    ):
        self.image_datasource = image_datasource
        self.x_range = x_range
        self.y_range = y_range
        self.anchor = anchor
        self.size = size
        self.bounds = (anchor[0], anchor[1], size[0], size[1])
        self.axis = axis
        self.xaxis = xaxis
        self.edgecolor = edgecolor
        self.alpha = alpha

    def render(self, ax, plans):
        # Resolve the zoom image level from the inset size (main axes known now).
        if self._resolve_zoom is not None:
            self._resolve_zoom(ax)

        xmin, xmax = self.x_range
        ymin, ymax = self.y_range

        if all(0 <= x <= 1 for x in [xmin, xmax, ymin, ymax]):
            w, h = self.image_datasource.get_image_size()
            x_start, y_start = (
                self.image_datasource.viewport.x,
                self.image_datasource.viewport.y,
            )
            xmin, xmax = int(xmin * w) + x_start, int(xmax * w) + x_start
            ymin, ymax = int(ymin * h) + y_start, int(ymax * h) + y_start

        # create a zoomed inset of the image
        axins = ax.inset_axes(self.bounds, xlim=(xmin, xmax), ylim=(ymax, ymin))

        for plan in plans:
            if plan.zoom_view_visible:
                plan.on_zoom_view = True
                plan.render(axins)
                plan.on_zoom_view = False

        _axes_style(axins, anchor=self.anchor, axis=self.axis, xaxis=self.xaxis)

        rect = (xmin, ymin, xmax - xmin, ymax - ymin)
        ax.indicate_inset(
            rect, axins, edgecolor=self.edgecolor, zorder=10, alpha=self.alpha
        )


class WSIViewer:
    """The viewer for whole slide images.

    Parameters
    ----------
    wsi : :class:`WSIData <wsidata.WSIData>`
        The whole slide image data.
    in_bounds : bool, default: True
        Whether to render the image in the bounds.
    img_bytes_limit : int, default: 2e9
        A safety ceiling on the bytes of the image to read. The pyramid level
        is primarily chosen from the displayed size (see ``display_aware``);
        this only caps the worst case.
    display_aware : bool, default: True
        Choose the image pyramid level from the displayed axes size at render
        time. This avoids reading/resampling a high-resolution image into a
        small figure, which is the dominant rendering cost. Set to False to
        read at full resolution (bounded by ``img_bytes_limit``).
    oversample : float, default: 1.5
        Read this many times more pixels than the axes occupies, for crispness
        and to absorb layout/DPI margins. Larger is sharper but slower.
    target_dpi : float, optional
        Override the figure DPI when sizing the image. Pass the export DPI
        (e.g. ``target_dpi=300`` to match ``savefig(dpi=300)``) so the image is
        read at sufficient resolution for high-DPI output.

    """

    _viewport: Viewport

    def __init__(
        self,
        wsi: WSIData,
        in_bounds: bool = True,
        img_bytes_limit: int = 2e9,
        display_aware: bool = True,
        oversample: float = 1.5,
        target_dpi: float | None = None,
    ):
        self.wsi = wsi
        self.in_bounds = in_bounds
        self.bytes_limit = img_bytes_limit
        self.display_aware = display_aware
        self.oversample = oversample
        self.target_dpi = target_dpi
        self._render_plans = []
        self._temp_render_plans = []
        self._image_render_plan = None
        self._zoom_image_render_plan = None
        self._zoom_plan = None
        self._is_zoom_cached = True

        # There is only one image source
        self.image_source: ImageDataSource = ImageDataSource(self.wsi.reader)
        # There is only one zoom image source
        self.zoom_image_source: ImageDataSource | None = None
        # There can be multiple tile sources
        self.tile_source: dict[str, TileDataSource] = {}
        # There can be multiple polygon sources
        self.polygon_source: dict[str, PolygonDataSource] = {}
        self._has_image = False
        self.title = None

        if self.in_bounds:
            self.set_viewport(*self.wsi.properties.bounds)
        else:
            self.set_viewport(0, 0, *wsi.properties.shape[::-1])

    def set_viewport(self, x, y, w, h):
        """Set the window to (x, y, w, h) at level 0"""
        self._viewport = self._get_region_geometry(x, y, w, h)

        self.image_source.set_viewport(self._viewport)
        for source in self.tile_source.values():
            source.set_viewport(self._viewport)
        for source in self.polygon_source.values():
            source.set_viewport(self._viewport)

    def set_tissue_id(self, tissue_id, tissue_key="tissues"):
        tissues = self.wsi[tissue_key]
        tissue_geo = tissues[tissues["tissue_id"] == tissue_id].geometry.iloc[0]
        xmin, ymin, xmax, ymax = tissue_geo.bounds
        self.set_viewport(xmin, ymin, xmax - xmin, ymax - ymin)

    def get_render_plans(self, in_zoom=False):
        plans = []
        if not in_zoom:
            if self._image_render_plan is not None:
                plans.append(self._image_render_plan)
        else:
            if self._zoom_image_render_plan is not None:
                plans.append(self._zoom_image_render_plan)
        plans.extend(self._render_plans)
        plans.extend(self._temp_render_plans)
        return plans

    def reset_render_plans(self):
        self._temp_render_plans = []
        if self._is_zoom_cached:
            self._zoom_image_render_plan = None

    def add_image(self, in_zoom=True):
        """Add the slide image to the plot.

        Parameters
        ----------
        in_zoom : bool, default: True
            Whether the image is also rendered in the zoom view.

        """
        plan = SlideImageRenderPlan(self.image_source)
        plan.zoom_view_visible = in_zoom
        self._image_render_plan = plan
        self._has_image = True
        return self

    def add_scalebar(
        self,
        label=None,
        length_fraction=None,
        width_fraction=None,
        location="lower right",
        pad=None,
        border_pad=None,
        sep=None,
        frameon=True,
        color="k",
        box_alpha=None,
        box_color="w",
        scale_loc="bottom",
        label_loc="top",
        font_properties=None,
        fixed_value=None,
        fixed_units=None,
        rotation=None,
        in_zoom=True,
        cache=True,
    ):
        """
        Add a scale bar to the plot.

        The scale bar is a matplotlib_scalebar.ScaleBar object.

        Parameters
        ----------
        label : str, optional
            The label of the scale bar.
        length_fraction : float, optional
            The length of the scale bar as a fraction of the axes.
        width_fraction : float, optional
            The width of the scale bar as a fraction of the axes.
        location : {'upper right', 'upper left', 'lower left', 'lower right', 'right', \
            'center left', 'center right', 'lower center', \
            'upper center', 'center', 'best'}, optional
            The location of the scale bar. Same as legend location in matplotlib.
        pad : float, optional
            The padding inside the scale bar.
        border_pad : float, optional
            The padding outside the scale bar.
        sep : float, optional
            The separation between the scale bar and the label.
        frameon : bool, default: True
            Whether to draw a box behind the scale bar.
        color : str, optional
            The color of the scale bar.
        box_alpha : float, optional
            The alpha of the box.
        box_color : str, default: 'w'
            The color of the box.
        scale_loc : {'top', 'bottom', 'left', 'right'}, optional
            Location of the scale with respect to the scale bar.
        label_loc : {'top', 'bottom', 'left', 'right'}, optional
            The location of the label.
        font_properties : dict, optional
            The font properties of the label.
        fixed_value : float, optional
            To fix the value of the scale bar.
        fixed_units : str, optional
            Units of the `fixed_value`.
        rotation : {'horizontal', 'vertical'}, float, optional
            The rotation of the scale bar.
        in_zoom : bool, default: True
            Whether the scale bar is also rendered in the zoom view.
        cache : bool, default: True
            Whether to cache the render plan. If False, it is dropped after the
            next ``show``.

        """

        dx = self.wsi.properties.mpp

        options = {
            "label": label,
            "length_fraction": length_fraction,
            "width_fraction": width_fraction,
            "location": location,
            "pad": pad,
            "border_pad": border_pad,
            "sep": sep,
            "frameon": frameon,
            "color": color,
            "box_alpha": box_alpha,
            "box_color": box_color,
            "scale_loc": scale_loc,
            "label_loc": label_loc,
            "font_properties": font_properties,
            "fixed_value": fixed_value,
            "fixed_units": fixed_units,
            "rotation": rotation,
        }

        plan = ScaleBarRenderPlan(self.image_source, dx, **options)
        plan.zoom_view_visible = in_zoom
        if cache:
            self._render_plans.append(plan)
        else:
            self._temp_render_plans.append(plan)
        return self

    def mark_origin(self, in_zoom=False, cache=True):
        plan = OriginXYArrowRenderPlan()
        plan.zoom_view_visible = in_zoom
        if cache:
            self._render_plans.append(plan)
        else:
            self._temp_render_plans.append(plan)
        return self

    def _process_polygons(self, key, label_by, color_by, palette):
        shapes = self.wsi[key]
        labels = shapes[label_by] if label_by is not None else None

        colors = None
        if color_by is not None:
            colors = shapes[color_by]
            if isinstance(colors, pd.Categorical):
                # If colors is categorical, convert to codes
                u_colors = colors.codes
            else:
                u_colors = np.unique(colors)
            palette = get_dict_palette(palette, u_colors)
            colors = [palette[c] for c in colors]

        else:
            # Set palette to None
            palette = None

        if self.polygon_source.get(key) is None:
            polygons = shapes.geometry
            ds = PolygonDataSource(polygons)
            ds.set_viewport(self._viewport)
            self.polygon_source[key] = ds

        return self.polygon_source[key], labels, colors, palette

    def add_contours(
        self,
        key,
        label_by=None,
        color_by=None,
        palette: PaletteType = None,
        outline_color: ColorType = "#117554",
        hole_color: ColorType = "#4379F2",
        linewidth: int = 1,
        outline_kwargs: dict | None = None,
        hole_kwargs: dict | None = None,
        legend_kws: dict | None = None,
        legend: bool = True,
        in_zoom: bool = True,
        cache=True,
    ):
        """Add contours to the plot.

        Contours are the boundaries of the polygons.
        If you intend to plot filled polygons, use `add_polygons` instead.

        Parameters
        ----------
        key : str
            The key of the polygon table.
        label_by : str, optional
            The column contains labels for the contours.
            The labels will be shown on top of the contours.
        color_by : str, optional
            The column contains colors or colors encoding (both categorical and continuous) for the contours.
            The color only affects the outline of the contours but not the holes.
        palette : dict, list, str, optional
            The color palette for the colors.
            You can use a dict where the keys are the unique values in the color column and the values are the colors.
            If a list, the colors will be assigned to the unique values in the color column.
            If a color, all the contours will have the same color.
        outline_color : color, default: "#117554"
            The default color of the outline of the contours.
        hole_color : color, default: "#4379F2"
            The default color of the holes of the contours.
        linewidth : int, default: 1
            The width of the contours.
        outline_kwargs : dict, optional
            The keyword arguments for the outline of the contours.
        hole_kwargs : dict, optional
            The keyword arguments for the holes of the contours.
        legend_kws : dict, optional
            The keyword arguments for the legend.
        in_zoom : bool, default: True
            Whether the contours are rendered in the zoom view.
        legend : bool, default: True
            Whether to show the legend.
        cache : bool, default: True
            Whether to cache the render plan. If False, it is dropped after the
            next ``show``.

        """
        contours, labels, colors, palette = self._process_polygons(
            key, label_by, color_by, palette
        )

        plan = ContourRenderPlan(
            contours,
            labels=labels,
            colors=colors,
            palette=palette,
            outline_color=outline_color,
            hole_color=hole_color,
            linewidth=linewidth,
            outline_kws=outline_kwargs,
            hole_kws=hole_kwargs,
            legend_kws=legend_kws,
        )
        plan.zoom_view_visible = in_zoom
        plan.legend_visible = legend
        if cache:
            self._render_plans.append(plan)
        else:
            self._temp_render_plans.append(plan)
        return self

    def add_polygons(
        self,
        key: str,
        label_by: str | None = None,
        color_by: str | None = None,
        palette: PaletteType = None,
        alpha: float = 0.9,
        color: ColorType = "#D3F527",
        linewidth: int = 1,
        legend_kws: dict | None = None,
        legend: bool = True,
        in_zoom: bool = True,
        cache=True,
        backend=None,
        **kwargs,
    ):
        """Add filled polygons to the plot.

        If you intend to plot only the outlines of the polygons, use `add_contours` instead.

        Parameters
        ----------
        key : str
            The key of the polygon table.
        label_by : str, optional
            The column contains labels for the polygons.
            The labels will be shown on top of the polygons.
        color_by : str, optional
            The column contains colors or colors encoding (both categorical and continuous) for the polygons.
            The color will fill the polygons.
        palette : dict, list, str, optional
            The color palette for the colors.
            You can use a dict where the keys are the unique values in the color column and the values are the colors.
            If a list, the colors will be assigned to the unique values in the color column.
            If a color, all the polygons will have the same color.
        alpha : float, default: 0.9
            The transparency of the polygons.
        color : color, default: "#D3F527"
            The default color of the polygons.
        linewidth : int, default: 1
            The width of the outline of the polygons.
        legend_kws : dict, optional
            The keyword arguments for the legend.
        in_zoom : bool, default: True
            Whether the polygons are rendered in the zoom view.
        legend : bool, default: True
            Whether to show the legend.
        cache : bool, default: True
            The plan will be cached if True.
        backend : {'matplotlib', 'datashader'}, optional
            The backend to use for plotting. If None, datashader is used for the
            base view when there are more than 10,000 polygons.

        """
        polygons, labels, colors, palette = self._process_polygons(
            key, label_by, color_by, palette
        )

        # Decide whether to use Datashader for the base view: an explicit
        # backend wins, and with None big layers switch to it automatically
        if backend is None:
            use_datashader = len(polygons.polygons) > 10000
        else:
            use_datashader = backend == "datashader"
        if use_datashader and find_spec("datashader") is None:
            use_datashader = False
            warnings.warn(
                "Datashader is not installed. "
                "Falling back to matplotlib for the base view.",
                stacklevel=find_stack_level(),
            )

        if use_datashader:
            warnings.warn(
                "Datashader rendering is experimental. "
                "If you find any bugs please report an issue:"
                "https://github.com/rendeirolab/LazySlide/issues",
                stacklevel=find_stack_level(),
            )
            # Subset shapes to viewport for better performance
            shapes_df = self.wsi[key]
            viewport_box = self._viewport.box
            mask = shapes_df.geometry.intersects(viewport_box)
            shapes_subset = shapes_df[mask]

            # Base view: datashader raster
            ds_plan = DatashaderFilledPolygonRenderPlan(
                shapes=shapes_subset,
                image_datasource=self.image_source,
                color_by=color_by,
                palette=palette,
                color=color,
                alpha=alpha,
                legend_kws=legend_kws,
            )
            ds_plan.zoom_view_visible = False
            ds_plan.legend_visible = legend

            # Zoom view: vector rendering for details
            zoom_plan = ZoomOnlyFilledPolygonRenderPlan(
                polygons,
                labels=labels,
                colors=colors,
                palette=palette,
                alpha=alpha,
                color=color,
                linewidth=linewidth,
                legend_kws=legend_kws,
                **kwargs,
            )
            zoom_plan.zoom_view_visible = in_zoom
            zoom_plan.legend_visible = (
                False  # legend shown by base view plan if requested
            )

            if cache:
                self._render_plans.append(ds_plan)
                self._render_plans.append(zoom_plan)
            else:
                self._temp_render_plans.append(ds_plan)
                self._temp_render_plans.append(zoom_plan)
        else:
            # Regular vector rendering for both base and zoom views
            plan = FilledPolygonRenderPlan(
                polygons,
                labels=labels,
                colors=colors,
                palette=palette,
                alpha=alpha,
                color=color,
                linewidth=linewidth,
                legend_kws=legend_kws,
                **kwargs,
            )
            plan.zoom_view_visible = in_zoom
            plan.legend_visible = legend
            if cache:
                self._render_plans.append(plan)
            else:
                self._temp_render_plans.append(plan)

        return self

    def _process_tiles(
        self, key, color_by=None, feature_key=None, cmap="coolwarm", palette=None
    ):
        tiles = self.wsi[key]
        tiles_xy = tiles.bounds[["minx", "miny"]].to_numpy()
        spec = self.wsi.tile_spec(key)

        if self.tile_source.get(key) is None:
            ds = TileDataSource(tiles_xy, spec)
            ds.set_viewport(self._viewport)
            self.tile_source[key] = ds

        # If visualize feature
        if color_by is not None:
            if feature_key is not None:
                feature_key = self.wsi._check_feature_key(feature_key, key)
                adata = self.wsi[feature_key]
                if color_by in adata.obs.columns:
                    values = adata.obs[color_by].values
                    title = color_by
                elif color_by in adata.var.index:
                    values = adata[:, color_by].X.flatten()
                    title = f"{feature_key} ({color_by})"
                else:
                    raise ValueError(
                        f"color_by={color_by} not found in feature of '{feature_key}'."
                    )
            # If visualize tile table
            else:
                if color_by not in tiles.columns:
                    raise ValueError(
                        f"color_by={color_by} not found in the tile table."
                    )
                values = tiles[color_by]
                title = color_by
        else:
            values = None
            title = None

        # Decide the color palette of tiles
        is_categorical = False
        if values is not None and (
            isinstance(values, pd.CategoricalDtype) or not isinstance(values[0], Number)
        ):
            is_categorical = True

        if is_categorical:
            cats = pd.unique(values)  # Set sorted=False to avoid NA in the data
            palette = get_dict_palette(palette, cats)
        container = {
            "ds": self.tile_source[key],
            "values": values,
            "title": title,
            "cmap": cmap,
            "palette": palette,
            "is_categorical": is_categorical,
        }

        return container

    def add_tiles(
        self,
        key,
        feature_key=None,
        color_by=None,
        style: Literal["scatter", "heatmap"] = "scatter",
        palette=None,
        cmap="coolwarm",
        norm=None,
        vmin=None,
        vmax=None,
        alpha=0.5,
        smooth=False,
        smooth_scale=2,
        rasterized=False,
        size=None,
        zoom_size=None,
        marker="o",
        gridcolor: ColorType = "k",
        linewidth=0.1,
        legend_kws=None,
        legend=True,
        in_zoom=True,
        cache=True,
    ):
        """Add tiles to the plot.

        Parameters
        ----------
        key : str
            The key of the tile table.
        feature_key : str, optional
            The key of the feature table to visualize.
        color_by : str, optional
            The column or feature to color the tiles by.
        style : {'scatter', 'heatmap'}, default: 'scatter'
            The style to render the tiles.
        palette : dict, list, str, optional
            The color palette for categorical coloring.
        cmap : str, optional
            The colormap for continuous coloring.
        norm : matplotlib.colors.Normalize, optional
            The normalization for the colormap.
        vmin, vmax : float, optional
            The min and max values for the colormap.
        alpha : float, default: 0.5
            The transparency of the tiles.
        smooth : bool, default: False
            Whether to apply smoothing to the heatmap.
        smooth_scale : int, default: 2
            The scale of the smoothing kernel.
        rasterized : bool, default: False
            Whether to rasterize the scatter plot.
        size : float, optional
            The size of the scatter points.
        zoom_size : float, optional
            The size of the scatter points in zoom view.
        marker : str, default: 'o'
            The marker style for scatter.
        gridcolor : color, default: 'k'
            The color of the grid lines.
        linewidth : float, default: 0.1
            The width of the grid lines.
        legend_kws : dict, optional
            The keyword arguments for the legend.
        legend : bool, default: True
            Whether to show the legend.
        in_zoom : bool, default: True
            Whether to render in the zoom view.
        cache : bool, default: True
            Whether to cache the render plan.

        """
        container = self._process_tiles(key, color_by, feature_key, cmap, palette)
        if color_by is None:
            plan = GridTilesRenderPlan(
                container["ds"], color=gridcolor, linewidth=linewidth
            )
        else:
            if style == "scatter":
                plan = ScatterTilesRenderPlan(
                    container["ds"],
                    container["values"],
                    palette=container["palette"],
                    cmap=container["cmap"],
                    norm=norm,
                    vmin=vmin,
                    vmax=vmax,
                    alpha=alpha,
                    size=size,
                    zoom_size=zoom_size,
                    rasterized=rasterized,
                    marker=marker,
                    legend_kws=legend_kws,
                )
            elif style == "heatmap":
                plan = HeatmapTilesRenderPlan(
                    container["ds"],
                    container["values"],
                    palette=container["palette"],
                    cmap=cmap,
                    norm=norm,
                    vmin=vmin,
                    vmax=vmax,
                    alpha=alpha,
                    smooth=smooth,
                    smooth_scale=smooth_scale,
                    legend_kws=legend_kws,
                )
            else:
                raise ValueError(
                    f"Unknown style={style}, options are 'scatter' or 'heatmap'."
                )
        plan.zoom_view_visible = in_zoom
        plan.legend_visible = legend
        self.title = container["title"]
        if cache:
            self._render_plans.append(plan)
        else:
            self._temp_render_plans.append(plan)

    def add_zoom(
        self,
        xmin: Number | None = None,
        xmax: Number | None = None,
        ymin: Number | None = None,
        ymax: Number | None = None,
        tissue_id: int | None = None,
        tissue_key: str = "tissues",
        anchor: tuple[float, float] = (1.2, 0),
        size: tuple[float, float] = (1, 1),
        edgecolor: ColorType = "k",
        alpha=0.5,
        axis="on",
        xaxis="top",
        cache: bool = True,
    ):
        """Add a zoom window to the plot.

        Parameters
        ----------
        xmin, xmax, ymin, ymax : int, float, optional
            The coordinates of the zoom window.
            You may also provide in (0-1) range to specify the fraction of the window.
        tissue_id : int, optional
            The tissue id to zoom into.
        tissue_key : str, optional
            The key of the tissue table.
        anchor : tuple, default: (1.2, 0)
            The anchor point of the zoom window, relative to the main axes.
        size : tuple, default: (1, 1)
            The size of the zoom window, relative to the main axes.
        edgecolor : color, default: "k"
            The color of the box that marks the zoomed region.
        alpha : float, default: 0.5
            The transparency of that box.
        axis : {"on", "off"}, default: "on"
            Whether to draw the axes of the zoom window.
        xaxis : {"top", "bottom"}, default: "top"
            Where to put the x-axis of the zoom window.
        cache : bool, default: True
            Whether to keep the zoom window for later ``show`` calls. If False,
            it is dropped after the next ``show``.

        """
        if not any([xmin, xmax, ymin, ymax]):
            if tissue_id is None:
                raise ValueError(
                    "Either (xmin, xmax, ymin, ymax) or tissue_id must be provided."
                )
            tissues = self.wsi[tissue_key]
            tissue_geo = tissues[tissues["tissue_id"] == tissue_id].geometry.iloc[0]
            xmin, ymin, xmax, ymax = tissue_geo.bounds
        else:
            if tissue_id is not None:
                warnings.warn(
                    "Both (xmin, xmax, ymin, ymax) and tissue_id are also provided. "
                    "tissue_id will be ignored.",
                    stacklevel=find_stack_level(),
                )

        if all(0 <= x <= 1 for x in [xmin, xmax, ymin, ymax]):
            current_viewport = self._viewport
            downsample = current_viewport.downsample
            xmin = (current_viewport.x + xmin * current_viewport.w) * downsample
            xmax = (current_viewport.x + xmax * current_viewport.w) * downsample
            ymin = (current_viewport.y + ymin * current_viewport.h) * downsample
            ymax = (current_viewport.y + ymax * current_viewport.h) * downsample
        elif all(x > 1 for x in [xmin, xmax, ymin, ymax]):
            pass
        else:
            raise ValueError(
                "xmin, xmax, ymin, ymax must be either all in (0-1) range or all > 1."
            )

        viewport = self._get_region_geometry(xmin, ymin, xmax - xmin, ymax - ymin)
        self.zoom_image_source = ImageDataSource(self.wsi.reader)
        self.zoom_image_source.set_viewport(viewport)

        self._zoom_plan = ZoomRenderPlan(
            self.image_source,
            (xmin, xmax),
            (ymin, ymax),
            anchor=anchor,
            size=size,
            axis=axis,
            xaxis=xaxis,
            edgecolor=edgecolor,
            alpha=alpha,
        )
        self._zoom_plan._resolve_zoom = self._apply_zoom_resolution
        if self._has_image:
            self._zoom_image_render_plan = SlideImageRenderPlan(self.zoom_image_source)

        if not cache:
            self._is_zoom_cached = False

    def _set_image_viewport(self, source: ImageDataSource, vp: Viewport):
        """Assign a resolved viewport to an image source and force a re-read.

        Bypasses ``DataSource.set_viewport`` which no-ops on equality and would
        otherwise skip the refresh when the same viewer is re-shown onto a
        different-sized axes.
        """
        source.viewport = vp
        source._refresh = True

    def _apply_display_resolution(self, ax):
        """Resolve the image pyramid level.

        Always applies the byte-limit ceiling. When ``display_aware`` is set,
        the displayed axes size additionally drives the level down so a
        high-resolution image isn't read into a small figure.
        """
        aw = ah = None
        if self.display_aware:
            aw, ah = _axes_device_px(ax, self.target_dpi)
        if self.image_source.viewport is not None:
            vp = self._resolve_image_level(self.image_source.viewport, aw, ah)
            self._set_image_viewport(self.image_source, vp)

        # Shrink the datashader canvas to the displayed size (capped at 4096).
        if aw and ah:
            cap = max(256, int(min(4096, max(aw, ah) * self.oversample)))
            for plan in self.get_render_plans():
                if isinstance(plan, DatashaderFilledPolygonRenderPlan):
                    plan.max_px = cap

    def _apply_zoom_resolution(self, main_ax):
        """Resolve the zoom image level from the inset's size on the main axes."""
        if self.zoom_image_source is None or self.zoom_image_source.viewport is None:
            return
        aw = ah = None
        if self.display_aware:
            aw, ah = _axes_device_px(main_ax, self.target_dpi)
            if aw is not None:
                aw *= self._zoom_plan.size[0]
                ah *= self._zoom_plan.size[1]
        vp = self._resolve_image_level(self.zoom_image_source.viewport, aw, ah)
        self._set_image_viewport(self.zoom_image_source, vp)

    def show(self, ax=None, axis="on", xaxis="top"):
        import matplotlib.pyplot as plt
        from legendkit import vstack

        if ax is None:
            ax = plt.gca()

        self._apply_display_resolution(ax)

        legends = []
        for plan in self.get_render_plans():
            plan.render(ax)
            if plan.legend_visible:
                legend = plan.get_legend()
                if legend is not None:
                    legends.append(legend)

        # Set the viewport for axes when no image present
        if not self._has_image:
            w = self._viewport.w * self._viewport.downsample
            h = self._viewport.h * self._viewport.downsample
            xmin = self._viewport.x
            xmax = xmin + w
            ymin = self._viewport.y
            ymax = ymin + h
            ax.set_xlim(xmin, xmax)
            ax.set_ylim(ymax, ymin)
        ax = _axes_style(ax, axis=axis, xaxis=xaxis)

        legend_placement = {
            "loc": "center left",
            "bbox_transform": ax.transAxes,
            "bbox_to_anchor": (1.01, 0.5),
        }
        if self._zoom_plan is not None:
            self._zoom_plan.render(ax, self.get_render_plans(in_zoom=True))
            if not self._is_zoom_cached:
                # If not cached, remove the zoom plan
                self._zoom_plan = None
            legend_placement.update(loc="center right", bbox_to_anchor=(-0.1, 0.5))

        if len(legends) > 0:
            stack_legends = vstack(legends, **legend_placement)
            ax.add_artist(stack_legends)

        if self.title is not None:
            ax.set_title(self.title)

        # remove temp render plans
        self._temp_render_plans = []

        return ax

    def _get_region_geometry(self, x, y, w, h) -> Viewport:
        """Build a level-0 viewport for a region.

        This is eager and cheap: no image is read here. The pyramid
        level/downsample is resolved later (at render time) from the displayed
        axes size; see :meth:`_resolve_image_level`.
        """
        x, y, w, h = int(x), int(y), int(w), int(h)
        return Viewport(x, y, w, h, level=0, downsample=1, w0=w, h0=h)

    def _resolve_image_level(self, vp, axes_px_w=None, axes_px_h=None) -> Viewport:
        """Resolve the best pyramid level for a viewport given the display size.

        Picks the coarsest pyramid level whose downsample still resolves the
        displayed axes (``axes pixels * oversample``). The byte limit acts only
        as a safety ceiling. The level-0 region (``w0``, ``h0``) is preserved,
        so the displayed extent never moves.
        """
        props = self.wsi.properties
        n_level = props.n_level
        lvl_ds = getattr(props, "level_downsample", None) or [1.0]
        w0, h0 = vp.w0, vp.h0

        target = 1.0
        if axes_px_w and axes_px_h:
            target = max(
                1.0,
                w0 / max(axes_px_w * self.oversample, 1),
                h0 / max(axes_px_h * self.oversample, 1),
            )

        level, downsample = _select_level_for_downsample(lvl_ds, target, n_level)

        # Byte ceiling: realistic peak working set is ~4 bytes/pixel (RGBA).
        # Step to coarser levels only if the read would still exceed the limit.
        while (w0 / downsample) * (h0 / downsample) * 4 > self.bytes_limit and (
            level < n_level - 1
        ):
            level += 1
            downsample = float(lvl_ds[level])

        dw = max(1, int(np.ceil(w0 / downsample)))
        dh = max(1, int(np.ceil(h0 / downsample)))
        return Viewport(vp.x, vp.y, dw, dh, level, downsample, w0=w0, h0=h0)


def _select_level_for_downsample(level_downsamples, target_downsample, n_level):
    """Pick the largest pyramid level whose downsample is <= target.

    Mirrors the closest-level rule used in wsidata's TileSpec: never drop below
    the displayed resolution, only avoid wasteful over-sampling.

    Returns
    -------
    (level, downsample) : (int, float)
    """
    ds = np.asarray(level_downsamples, dtype=float)
    if ds.size == 0 or not np.isfinite(ds).any() or target_downsample <= 1:
        return 0, float(ds[0]) if ds.size else 1.0
    gap = ds - float(target_downsample)
    gap[gap > 0] = np.inf  # forbid levels coarser than the target
    if not np.isfinite(gap).any():
        # Target is finer than even level 1 -> use the finest level.
        return 0, float(ds[0])
    # Clamp: wsidata's translate_level raises (does not clamp) out-of-range.
    level = max(0, min(int(np.argmin(np.abs(gap))), n_level - 1))
    return level, float(ds[level])


def _axes_device_px(ax, target_dpi=None):
    """Estimate the axes size in device pixels without requiring a prior draw.

    Uses ``get_position() x figsize x dpi`` (valid right after the axes is
    created, unlike ``get_window_extent`` which needs a renderer). With
    ``aspect('equal')`` and tight layout this is an upper bound on the pixels
    actually needed, which is the safe direction. ``target_dpi`` overrides the
    figure DPI (e.g. to match ``savefig(dpi=...)``).
    """
    fig = ax.get_figure()
    if fig is None:
        return None, None
    pos = ax.get_position()
    fw, fh = fig.get_size_inches()
    dpi = target_dpi or fig.dpi
    return max(1.0, pos.width * fw * dpi), max(1.0, pos.height * fh * dpi)


def _axes_style(ax, anchor=None, axis="off", xaxis="top"):
    ax.set_aspect("equal", anchor=anchor)
    ax.axis(axis)
    if xaxis == "top":
        ax.spines["top"].set_position(("outward", 0))
        ax.xaxis.tick_top()
        ax.xaxis.set_label_position("top")
    ax.xaxis.set_ticks(np.asarray(ax.get_xlim(), dtype=int))
    ax.yaxis.set_ticks(np.asarray(ax.get_ylim(), dtype=int))
    return ax


MPL_QUAL_PALS = {
    "tab10": 10,
    "tab20": 20,
    "tab20b": 20,
    "tab20c": 20,
    "Set1": 9,
    "Set2": 8,
    "Set3": 12,
    "Accent": 8,
    "Paired": 12,
    "Pastel1": 9,
    "Pastel2": 8,
    "Dark2": 8,
}


def get_dict_palette(palette: PaletteType, category: list) -> dict:
    """Convert a palette to a dictionary if it is not already.

    The category must be a sequence of unique values.
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import is_color_like, to_rgba

    if palette is None:
        if len(category) <= len(LAZYSLIDE_PALETTE):
            palette = LAZYSLIDE_PALETTE
        else:
            palette = "tab20"

    if isinstance(palette, dict):
        return palette
    if isinstance(palette, str):
        cmap = plt.get_cmap(palette)
        if palette in MPL_QUAL_PALS:
            # If the palette is a qualitative palette, call by n_colors
            sel = np.arange(len(category))
        else:
            sel = np.linspace(0, 1, len(category))
        colors = cmap(sel)
        return dict(zip(category, colors))
    elif isinstance(palette, Sequence):
        return dict(zip(category, cycle(palette)))
    elif is_color_like(palette):
        return {cat: to_rgba(palette) for cat in category}
    else:
        raise ValueError(f"Unsupported palette type: {type(palette)}")
