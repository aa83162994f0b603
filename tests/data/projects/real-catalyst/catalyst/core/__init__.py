# flake8: noqa
# import order:
# engine
# runner
# callback
# logger

from catalyst.core.engine import Engine
from catalyst.core.runner import IRunner, IRunnerError
from catalyst.core.callback import (
    ICallback,
    Callback,
    CallbackOrder,
    ICriterionCallback,
    IBackwardCallback,
    IOptimizerCallback,
    ISchedulerCallback,
    CallbackWrapper,
)
from catalyst.core.logger import ILogger
