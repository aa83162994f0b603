"""Utilities for tasks."""

from typing import Literal

TaskLiterals = Literal[
    "image_classification", "text_classification", "causal_lm"
]
