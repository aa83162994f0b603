# Modified for efficientloftr-inference, 2026: reduced to detect_NaN; pytorch_lightning and loguru imports dropped.
# Upstream: zju3dv/EfficientLoFTR @ ffd4a464 (Apache-2.0). See NOTICE and CHANGES.md.
"""Minimal replacement for upstream src/utils/misc.py.

Upstream imports pytorch_lightning and loguru for helpers inference never uses. Only `detect_NaN`
is reachable from the model, so only that is kept, on the standard library.
"""
import logging

import torch

logger = logging.getLogger(__name__)


def detect_NaN(feat_0, feat_1):
    logger.warning(
        f"NaN detected in features (#feat_0: {torch.isnan(feat_0).int().sum()}, "
        f"#feat_1: {torch.isnan(feat_1).int().sum()})"
    )
    feat_0[torch.isnan(feat_0)] = 0
    feat_1[torch.isnan(feat_1)] = 0
