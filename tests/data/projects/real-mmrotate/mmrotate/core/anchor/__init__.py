# Copyright (c) OpenMMLab. All rights reserved.
from .anchor_generator import PseudoAnchorGenerator, RotatedAnchorGenerator
from .builder import ROTATED_ANCHOR_GENERATORS, build_prior_generator
from .utils import rotated_anchor_inside_flags

__all__ = [
    'RotatedAnchorGenerator', 'rotated_anchor_inside_flags',
    'PseudoAnchorGenerator', 'ROTATED_ANCHOR_GENERATORS',
    'build_prior_generator'
]
