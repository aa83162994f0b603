"""
Triton-based implementation of Flash Attention algorithm.
"""
