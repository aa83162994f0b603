from .render_panel import (
    CameraPath,
    Colormaps,
    Keyframe,
    RenderTabState,
    apply_float_colormap,
    populate_general_render_tab,
)
from .version import __version__
from .viewer import VIEWER_LOCK, CameraState, Viewer, with_viewer_lock

__all__ = [
    "CameraState",
    "RenderTabState",
    "Viewer",
    "VIEWER_LOCK",
    "with_viewer_lock",
    "__version__",
    "Keyframe",
    "CameraPath",
    "Colormaps",
    "apply_float_colormap",
    "populate_general_render_tab",
]
