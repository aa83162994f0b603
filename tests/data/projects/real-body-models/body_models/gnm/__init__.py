"""GNM Head models. Import a class from the NumPy, Torch, or JAX module."""

from body_models.gnm.numpy import GNM

__all__ = ["GNM"]
