"""Spherical-harmonic CUDA generation and scalar lowering."""
