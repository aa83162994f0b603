# SPDX-FileCopyrightText: The Docling Contributors
# SPDX-License-Identifier: MIT

"""Object detection inference engines."""

from docling.models.inference_engines.object_detection.base import (
    BaseObjectDetectionEngine,
    BaseObjectDetectionEngineOptions,
    ObjectDetectionEngineInput,
    ObjectDetectionEngineOutput,
    ObjectDetectionEngineType,
)
from docling.models.inference_engines.object_detection.factory import (
    create_object_detection_engine,
)

__all__ = [
    "BaseObjectDetectionEngine",
    "BaseObjectDetectionEngineOptions",
    "ObjectDetectionEngineInput",
    "ObjectDetectionEngineOutput",
    "ObjectDetectionEngineType",
    "create_object_detection_engine",
]
