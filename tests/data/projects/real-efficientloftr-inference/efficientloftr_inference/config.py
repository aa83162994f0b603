# Added for efficientloftr-inference, 2026: upstream full_default_cfg frozen; yacs dropped.
# Upstream: zju3dv/EfficientLoFTR @ ffd4a464 (Apache-2.0). See NOTICE and CHANGES.md.
"""Upstream's own `full_default_cfg`, resolved once and frozen.

Upstream builds this with `yacs` at import time. Inference only ever needs this one resolved
tree, so it is frozen here as a plain dict and `yacs` is not a runtime dependency. Regenerate
with the build script if upstream changes.
"""
import copy

_FULL = {   'align_corner': False,
    'backbone': {'block_dims': [64, 128, 256]},
    'backbone_type': 'RepVGG',
    'coarse': {   'agg_size0': 4,
                  'agg_size1': 4,
                  'd_ffn': 256,
                  'd_model': 256,
                  'layer_names': ['self', 'cross', 'self', 'cross', 'self', 'cross', 'self', 'cross'],
                  'nhead': 8,
                  'no_flash': False,
                  'npe': [832, 832, 832, 832],
                  'rope': True},
    'fine_window_size': 8,
    'half': False,
    'match_coarse': {   'border_rm': 2,
                        'dsmax_temperature': 0.1,
                        'fp16matmul': False,
                        'skip_softmax': False,
                        'thr': 0.2,
                        'train_coarse_percent': 0.2,
                        'train_pad_num_gt_min': 200},
    'match_fine': {'local_regress_slicedim': 8, 'local_regress_temperature': 10.0},
    'mp': False,
    'replace_nan': True,
    'resolution': (8, 1)}


def full_config(coarse_threshold: float = 0.2, npe_long_side: int = 832) -> dict:
    """A fresh copy of the full-model config.

    Args:
        coarse_threshold: coarse matching confidence cut (`match_coarse.thr`).
        npe_long_side: RoPE position-encoding reference size. Upstream suggests setting this from
            the long side of the input when it exceeds 832.
    """
    cfg = copy.deepcopy(_FULL)
    cfg["match_coarse"]["thr"] = coarse_threshold
    cfg["coarse"]["npe"] = [832, 832, npe_long_side, npe_long_side]
    return cfg
