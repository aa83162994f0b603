from . import apis
from . import abstraction
from . import wrapper
from .wrapper import batch_expectation_ps
from .apis import submit_task
