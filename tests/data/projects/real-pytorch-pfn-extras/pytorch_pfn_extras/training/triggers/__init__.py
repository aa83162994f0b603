# import classes and functions
from pytorch_pfn_extras.training.triggers.early_stopping_trigger import (  # NOQA
    EarlyStoppingTrigger,
)
from pytorch_pfn_extras.training.triggers.function_trigger import (  # NOQA
    FunctionTrigger,
)
from pytorch_pfn_extras.training.triggers.interval_trigger import (  # NOQA
    IntervalTrigger,
)
from pytorch_pfn_extras.training.triggers.manual_schedule_trigger import (  # NOQA
    ManualScheduleTrigger,
)
from pytorch_pfn_extras.training.triggers.minmax_value_trigger import (  # NOQA
    BestValueTrigger,
    MaxValueTrigger,
    MinValueTrigger,
)
from pytorch_pfn_extras.training.triggers.once_trigger import (  # NOQA
    OnceTrigger,
)
from pytorch_pfn_extras.training.triggers.time_trigger import (  # NOQA
    TimeTrigger,
)
