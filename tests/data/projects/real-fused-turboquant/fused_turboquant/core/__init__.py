"""Core TurboQuant algorithm: rotation, quantization, packing."""
