"""Pipelines for features generation."""

__all__ = [
    "base",
    "lgb_pipeline",
    "image_pipeline",
    "linear_pipeline",
    "text_pipeline",
    "wb_pipeline",
    "torch_pipeline",
]
