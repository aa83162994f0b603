"""Norm graph planning, CUDA emission, and operand layouts."""
