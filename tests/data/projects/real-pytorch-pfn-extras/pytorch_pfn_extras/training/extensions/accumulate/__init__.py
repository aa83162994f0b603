from .average_accumulate import AverageAccumulate  # NOQA: F401
from .max_accumulate import MaxAccumulate  # NOQA: F401
from .min_accumulate import MinAccumulate  # NOQA: F401
from .standard_deviation_accumulate import (  # NOQA: F401
    StandardDeviationAccumulate,
)
from .unbiased_standard_deviation_accumulate import (  # NOQA: F401
    UnbiasedStandardDeviationAccumulate,
)
