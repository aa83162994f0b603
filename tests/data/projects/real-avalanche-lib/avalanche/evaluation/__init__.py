"""
The :py:mod:`Evaluation` module provides tools and interfaces to easily define
new metrics to monitor experiments. In addition, it also provides a set of
already implemented metrics. These metrics can be used by passing them to
the `EvaluationPlugin`.
"""

from .metric_definitions import *
