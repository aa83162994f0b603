from .eval import (
    jensen_shannon_divergence,
    mean_fide_score,
    fide_score,
    entropy,
    heuristic,
    mean_normalized_entropy,
)
from .spectral import spectral_stats
