from mmhuman3d.core.cameras import builder, camera_parameters, cameras
from mmhuman3d.core.cameras.builder import CAMERAS, build_cameras
from mmhuman3d.core.cameras.cameras import (
    FoVOrthographicCameras,
    FoVPerspectiveCameras,
    MMCamerasBase,
    OrthographicCameras,
    PerspectiveCameras,
    WeakPerspectiveCameras,
    compute_direction_cameras,
    compute_orbit_cameras,
)

__all__ = [
    'CAMERAS', 'FoVOrthographicCameras', 'FoVPerspectiveCameras',
    'MMCamerasBase', 'OrthographicCameras', 'PerspectiveCameras',
    'WeakPerspectiveCameras', 'build_cameras', 'builder', 'camera_parameters',
    'cameras', 'compute_orbit_cameras', 'compute_direction_cameras'
]
