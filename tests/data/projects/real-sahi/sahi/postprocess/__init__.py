"""Postprocessing backends and utilities for object prediction refinement."""

from sahi.postprocess.backends import get_postprocess_backend, set_postprocess_backend

__all__ = ["get_postprocess_backend", "set_postprocess_backend"]
