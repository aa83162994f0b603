"""File I/O, serialization, and data loaders."""

from aquapose.core.types.video_discovery import discover_camera_videos

from .midline_writer import Midline3DWriter, read_midline3d_results

__all__ = [
    "Midline3DWriter",
    "discover_camera_videos",
    "read_midline3d_results",
]
