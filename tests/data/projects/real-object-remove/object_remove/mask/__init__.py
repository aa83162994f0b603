"""Stage A — mask acquisition & refinement.

Selections are polygon/scanline based, with a raster mask as a *cached
derivative*: :class:`PolygonSelection` is the primary representation (exact,
resolution independent boolean ops), and a raster mask is generated on demand
for consumption by the fill/render stages.
"""

from .polygon_selection import PolygonSelection
from .brush_rasterizer import BrushRasterizer
from .selection_enhancer import SelectionEnhancer
from .connected_components import label_components, split_components
from .auto_select import AutoSelectModel

__all__ = [
    "PolygonSelection",
    "BrushRasterizer",
    "SelectionEnhancer",
    "label_components",
    "split_components",
    "AutoSelectModel",
]
