# Copyright Contributors to the OpenVDB Project
# SPDX-License-Identifier: Apache-2.0
#
"""Interactive scenes, views, and widgets for the fVDB browser viewer."""

from ._camera_view import CamerasView
from ._fog_volume_view import FogVolumeView
from ._gaussian_splat_3d_view import GaussianSplat3dView
from ._gaussian_splat_view_data import GaussianSplatViewData, ShOrderingMode
from ._image_view import ImageView
from ._level_set_view import LevelSetView
from ._point_cloud_view import PointCloudView
from ._scene import Scene, get_scene
from ._utils import grid_edge_network, gridbatch_edge_network
from ._viewer_server import init, shutdown, show, wait_for_interrupt
from ._widget_views import CheckboxView, NumberView, SliderView, TextView

__all__ = [
    "init",
    "shutdown",
    "show",
    "wait_for_interrupt",
    "FogVolumeView",
    "GaussianSplat3dView",
    "GaussianSplatViewData",
    "ShOrderingMode",
    "CamerasView",
    "ImageView",
    "LevelSetView",
    "get_scene",
    "PointCloudView",
    "Scene",
    "grid_edge_network",
    "gridbatch_edge_network",
    "CheckboxView",
    "NumberView",
    "SliderView",
    "TextView",
]
