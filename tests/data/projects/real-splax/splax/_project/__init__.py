"""Warp kernels and JAX FFI bindings for the projection stage of gaussian splatting."""

from splax._project._project import opacity_compensation, project, transform_ids

__all__ = ["opacity_compensation", "project", "transform_ids"]
