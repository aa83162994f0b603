"""SMPL-X models. Import a class from the NumPy, Torch, or JAX module."""
