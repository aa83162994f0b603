# Copyright © 2023-2024 Apple Inc.

from .gbdt import GBDTClassifier, GBDTRegressor
from .node import Node
from .questions import (
    BoolQuestionGenerator,
    FloatEquidistantQuestionGenerator,
    FloatRandomQuestionGenerator,
    IntEquidistantQuestionGenerator,
    IntRandomQuestionGenerator,
)
