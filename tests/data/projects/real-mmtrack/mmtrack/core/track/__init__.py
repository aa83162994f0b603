# Copyright (c) OpenMMLab. All rights reserved.
from .correlation import depthwise_correlation
from .interpolation import interpolate_tracks
from .similarity import embed_similarity
from .transforms import imrenormalize, outs2results, results2outs

__all__ = [
    'depthwise_correlation', 'outs2results', 'results2outs',
    'embed_similarity', 'imrenormalize', 'interpolate_tracks'
]
