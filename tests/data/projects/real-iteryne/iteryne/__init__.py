"""iteryne: Model-Agnostic Meta-Learning for any PyTorch ``nn.Module``.

Public API
----------
High level:
    :class:`MAML`, :class:`Learner`, :class:`MetaSGD`, :class:`ANIL`,
    :class:`MetaTrainer`.
Tasks:
    :class:`Task`, :class:`TaskSampler`, :class:`SinusoidTaskSampler`.
Functional core:
    :func:`adapt`, :func:`inner_step`, :func:`functional_forward`,
    :func:`named_params`, :func:`named_buffers`.
"""

from __future__ import annotations

from .anil import ANIL, head_names
from .datasets import SinusoidTaskSampler
from .functional import (
    adapt,
    functional_forward,
    inner_step,
    named_buffers,
    named_params,
)
from .maml import MAML, Learner
from .metasgd import MetaSGD
from .tasks import Task, TaskSampler
from .trainer import History, MetaTrainer

__version__ = "0.1.0"

__all__ = [
    "ANIL",
    "MAML",
    "History",
    "Learner",
    "MetaSGD",
    "MetaTrainer",
    "SinusoidTaskSampler",
    "Task",
    "TaskSampler",
    "__version__",
    "adapt",
    "functional_forward",
    "head_names",
    "inner_step",
    "named_buffers",
    "named_params",
]
