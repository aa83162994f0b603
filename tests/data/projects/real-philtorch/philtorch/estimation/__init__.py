"""State estimation: inferring hidden states from noisy measurements.

These compute the posterior distributions of a state-space model's states,
continuous (Kalman) or discrete (hidden Markov models), parallelized over
time with associative scans.
"""

from .hmm import hmm_filter, hmm_smoother, hmm_viterbi
from .kalman import KalmanFilterResult, KalmanSmootherResult, kalman_filter, kalman_smoother

__all__ = [
    "KalmanFilterResult",
    "KalmanSmootherResult",
    "hmm_filter",
    "hmm_smoother",
    "hmm_viterbi",
    "kalman_filter",
    "kalman_smoother",
]
