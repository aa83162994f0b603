# SPDX-FileCopyrightText: The Docling Contributors
# SPDX-License-Identifier: MIT

"""Image-classification inference engines."""

from docling.models.inference_engines.image_classification.base import (
    BaseImageClassificationEngine,
    BaseImageClassificationEngineOptions,
    ImageClassificationEngineInput,
    ImageClassificationEngineOutput,
    ImageClassificationEngineType,
)
from docling.models.inference_engines.image_classification.factory import (
    create_image_classification_engine,
)

__all__ = [
    "BaseImageClassificationEngine",
    "BaseImageClassificationEngineOptions",
    "ImageClassificationEngineInput",
    "ImageClassificationEngineOutput",
    "ImageClassificationEngineType",
    "create_image_classification_engine",
]
