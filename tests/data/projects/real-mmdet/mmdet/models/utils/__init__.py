# Copyright (c) OpenMMLab. All rights reserved.
from .gaussian_target import (gather_feat, gaussian_radius,
                              gen_gaussian_target, get_local_maximum,
                              get_topk_from_heatmap, transpose_and_gather_feat)
from .image import imrenormalize
from .make_divisible import make_divisible
# Disable yapf because it conflicts with isort.
# yapf: disable
from .misc import (align_tensor, aligned_bilinear, center_of_mass,
                   empty_instances, filter_gt_instances,
                   filter_scores_and_topk, flip_tensor, generate_coordinate,
                   images_to_levels, interpolate_as, levels_to_images,
                   mask2ndarray, multi_apply, relative_coordinate_maps,
                   rename_loss_dict, reweight_loss_dict,
                   samplelist_boxtype2tensor, select_single_mlvl,
                   sigmoid_geometric_mean, unfold_wo_center, unmap,
                   unpack_gt_instances)
from .panoptic_gt_processing import preprocess_panoptic_gt
from .point_sample import (get_uncertain_point_coords_with_randomness,
                           get_uncertainty)
from .vlfuse_helper import BertEncoderLayer, VLFuse, permute_and_flatten
from .wbf import weighted_boxes_fusion

__all__ = [
    'gaussian_radius', 'gen_gaussian_target', 'make_divisible',
    'get_local_maximum', 'get_topk_from_heatmap', 'transpose_and_gather_feat',
    'interpolate_as', 'sigmoid_geometric_mean', 'gather_feat',
    'preprocess_panoptic_gt', 'get_uncertain_point_coords_with_randomness',
    'get_uncertainty', 'unpack_gt_instances', 'empty_instances',
    'center_of_mass', 'filter_scores_and_topk', 'flip_tensor',
    'generate_coordinate', 'levels_to_images', 'mask2ndarray', 'multi_apply',
    'select_single_mlvl', 'unmap', 'images_to_levels',
    'samplelist_boxtype2tensor', 'filter_gt_instances', 'rename_loss_dict',
    'reweight_loss_dict', 'relative_coordinate_maps', 'aligned_bilinear',
    'unfold_wo_center', 'imrenormalize', 'VLFuse', 'permute_and_flatten',
    'BertEncoderLayer', 'align_tensor', 'weighted_boxes_fusion'
]
