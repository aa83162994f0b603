# ------------------------------------------------------------------------
# GroundedDINO-VL - Data Module
# Copyright (c) 2025 GhostCipher. All Rights Reserved.
# Licensed under the Apache License, Version 2.0 [see LICENSE for details]
# ------------------------------------------------------------------------

"""Data loading and transforms for GroundedDINO-VL."""

from . import transforms

__all__ = ["transforms"]
