from .io import (
    cross_validate_component_scan, 
    sgmm_fit_with_attempts,
    write_aligned_component_trajectories,
    write_representative_frames,
    generate_component_trajectories
)
from .plotting import plot_log_likelihood_with_dd
from .similarity import (
    kl_divergence,
    js_divergence,
    maha_dist2,
    bhattacharyya_distance,
    configurational_entropy
)

__all__ = [
    "cross_validate_component_scan",
    "sgmm_fit_with_attempts",
    "write_aligned_component_trajectories",
    "write_representative_frames",
    "generate_component_trajectories",
    "plot_log_likelihood_with_dd",
    "kl_divergence",
    "js_divergence",
    "maha_dist2",
    "bhattacharyya_distance",
    "configurational_entropy",
]

