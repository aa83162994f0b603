__all__ = [
    "EvalMonitor",
    "StdWorkflow",
]

from .eval_monitor import EvalMonitor
from .std_workflow import StdWorkflow
