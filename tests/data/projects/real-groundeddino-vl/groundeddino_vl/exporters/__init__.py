# ------------------------------------------------------------------------
# GroundedDINO-VL - Model Exporters
# Copyright (c) 2025 GhostCipher. All Rights Reserved.
# Licensed under the Apache License, Version 2.0 [see LICENSE for details]
# ------------------------------------------------------------------------

"""Model export utilities for ONNX, TensorRT, etc."""

# Placeholder for future export functionality
__all__ = []
