# Trigger benchmark registration when the benchmark package is loaded
from fme.core.models import conditional_sfno  # noqa: F401
from fme.downscaling.modules.physicsnemo_unets_v2 import benchmark  # noqa: F401
