"""Statistics for evaluating lens performance."""
from .distance import (
    js_distance,
    js_divergence,
    kl_divergence,
)
from .logit_stats import LogitStats
