from bindsnet.pipeline import action
from bindsnet.pipeline.base_pipeline import BasePipeline
from bindsnet.pipeline.dataloader_pipeline import (
    DataLoaderPipeline,
    TorchVisionDatasetPipeline,
)
from bindsnet.pipeline.environment_pipeline import EnvironmentPipeline

__all__ = [
    "EnvironmentPipeline",
    "BasePipeline",
    "DataLoaderPipeline",
    "TorchVisionDatasetPipeline",
    "action",
]
