"""
PyTorch-specific utilities and tools for model compression workflows.

Provides PyTorch-specific functionality including model loading,
sparsification utilities, and PyTorch tensor operations optimized for
compression workflows. Includes utilities for handling PyTorch models
and tensors during compression operations.
"""
