"""The PyKEEN pipeline and related wrapper functions."""

from .api import (
    PipelineResult,
    pipeline,
    pipeline_from_config,
    pipeline_from_path,
    replicate_pipeline_from_config,
    replicate_pipeline_from_path,
)
from .plot_utils import plot, plot_early_stopping, plot_er, plot_losses

__all__ = [
    "PipelineResult",
    "pipeline_from_path",
    "pipeline_from_config",
    "replicate_pipeline_from_config",
    "replicate_pipeline_from_path",
    "pipeline",
    "plot_losses",
    "plot_early_stopping",
    "plot_er",
    "plot",
]
