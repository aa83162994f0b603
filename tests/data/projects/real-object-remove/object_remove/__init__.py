"""object_remove — a from scratch, CPU implementation of an on device object
removal pipeline.

See ``docs/ARCHITECTURE.md`` for the full design: a polygon/scanline mask
layer, three fill engines of increasing sophistication, two interchangeable
blend backends, and a locked/queued session persistence layer.

Public entry point::

    from object_remove import RemoveObjectJob, EngineTier
    job = RemoveObjectJob(image_rgb)
    result = job.run(mask, tier=EngineTier.AUTO)
"""

import importlib
from typing import Any

__version__ = "0.2.2"

# Lazy attribute map: name maps to (submodule, attribute). Loaded on first access so
# importing any subpackage never eagerly drags in the whole tree.
_LAZY = {
    "RemoveObjectJob": ("object_remove.pipeline.remove_object_job", "RemoveObjectJob"),
    "EngineTier": ("object_remove.pipeline.remove_object_job", "EngineTier"),
    "JobResult": ("object_remove.pipeline.remove_object_job", "JobResult"),
    "PolygonSelection": ("object_remove.mask.polygon_selection", "PolygonSelection"),
    "BrushRasterizer": ("object_remove.mask.brush_rasterizer", "BrushRasterizer"),
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module_name, attr = _LAZY[name]
        return getattr(importlib.import_module(module_name), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
