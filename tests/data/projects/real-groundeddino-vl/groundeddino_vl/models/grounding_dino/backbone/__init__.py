# ------------------------------------------------------------------------
# GroundedDINO-VL - Backbone Models
# Based on Grounding DINO by IDEA-Research
# Copyright (c) 2025 GhostCipher. All Rights Reserved.
# Licensed under the Apache License, Version 2.0 [see LICENSE for details]
# ------------------------------------------------------------------------
# Original Copyright (c) 2023 IDEA. All Rights Reserved.
# ------------------------------------------------------------------------

from .backbone import Backbone, Joiner, build_backbone
from .position_encoding import PositionEmbeddingLearned, PositionEmbeddingSine
from .swin_transformer import SwinTransformer

__all__ = [
    "Backbone",
    "Joiner",
    "PositionEmbeddingSine",
    "PositionEmbeddingLearned",
    "SwinTransformer",
    "build_backbone",
]
