# Copyright (c) OpenMMLab. All rights reserved.
from .camera_image_projection import (camera_to_image_coord, camera_to_pixel,
                                      pixel_to_camera)
from .gaussian_heatmap import (generate_3d_gaussian_heatmaps,
                               generate_gaussian_heatmaps,
                               generate_udp_gaussian_heatmaps,
                               generate_unbiased_gaussian_heatmaps)
from .instance_property import (get_diagonal_lengths, get_instance_bbox,
                                get_instance_root)
from .offset_heatmap import (generate_displacement_heatmap,
                             generate_offset_heatmap)
from .post_processing import (batch_heatmap_nms, gaussian_blur,
                              gaussian_blur1d, get_heatmap_3d_maximum,
                              get_heatmap_maximum, get_simcc_maximum,
                              get_simcc_normalized)
from .refinement import (refine_keypoints, refine_keypoints_dark,
                         refine_keypoints_dark_udp, refine_simcc_dark)

__all__ = [
    'generate_gaussian_heatmaps', 'generate_udp_gaussian_heatmaps',
    'generate_unbiased_gaussian_heatmaps', 'gaussian_blur',
    'get_heatmap_maximum', 'get_simcc_maximum', 'generate_offset_heatmap',
    'batch_heatmap_nms', 'refine_keypoints', 'refine_keypoints_dark',
    'refine_keypoints_dark_udp', 'generate_displacement_heatmap',
    'refine_simcc_dark', 'gaussian_blur1d', 'get_diagonal_lengths',
    'get_instance_root', 'get_instance_bbox', 'get_simcc_normalized',
    'camera_to_image_coord', 'camera_to_pixel', 'pixel_to_camera',
    'get_heatmap_3d_maximum', 'generate_3d_gaussian_heatmaps'
]
