# Copyright (c) OpenMMLab. All rights reserved.
from .flow_io import (flow_from_bytes, read_flow, read_flow_kitti, read_pfm,
                      render_color_wheel, visualize_flow, write_flow,
                      write_flow_kitti)
from .image import adjust_gamma, adjust_hue

__all__ = [
    'read_flow', 'write_flow', 'visualize_flow', 'render_color_wheel',
    'read_flow_kitti', 'write_flow_kitti', 'adjust_hue', 'adjust_gamma',
    'read_pfm', 'flow_from_bytes'
]
