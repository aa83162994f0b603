# ------------------------------------------------------------------------
# GroundedDINO-VL - Utilities
# Copyright (c) 2025 GhostCipher. All Rights Reserved.
# Licensed under the Apache License, Version 2.0 [see LICENSE for details]
# ------------------------------------------------------------------------

"""Utility modules for GroundedDINO-VL."""

__all__ = [
    "box_ops",
    "logger",
    "misc",
    "inference",
]
