"""Private Triton kernels and custom autograd implementations for public ops."""

from __future__ import annotations
