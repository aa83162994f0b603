# ------------------------------------------------------------------------
# GroundedDINO-VL - Grounding DINO Model
# Based on Grounding DINO by IDEA-Research
# Copyright (c) 2025 GhostCipher. All Rights Reserved.
# Licensed under the Apache License, Version 2.0 [see LICENSE for details]
# ------------------------------------------------------------------------
# Original Copyright (c) 2023 IDEA. All Rights Reserved.
# ------------------------------------------------------------------------

from .model import GroundingDINO, build_groundingdino

__all__ = ["GroundingDINO", "build_groundingdino"]
