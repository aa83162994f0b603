from .evaluate_config import EvaluatorConfig
from .group import GroupConfig
from .task import TaskConfig


__all__ = ["EvaluatorConfig", "TaskConfig", "GroupConfig"]
