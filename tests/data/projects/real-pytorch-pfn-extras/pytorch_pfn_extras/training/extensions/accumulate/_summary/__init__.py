from ._average_summary import AverageSummary  # NOQA: F401
from ._base_summary import SummaryBase  # NOQA: F401
from ._max_summary import MaxSummary  # NOQA: F401
from ._min_summary import MinSummary  # NOQA: F401
from ._standard_deviation_summary import StandardDeviationSummary  # NOQA: F401
from ._unbiased_standard_deviation_summary import (  # NOQA: F401
    UnbiasedStandardDeviationSummary,
)
