from .multivar import (imlocal, calculate_transition_matrix,
                       sum_transitions, update_classes)
from .fft_nmf import SlidingFFTNMF
from .unmixer import SpectralUnmixer

__all__ = ['imlocal', 'calculate_transition_matrix', 'sum_transitions',
           'update_classes', 'SlidingFFTNMF', 'SpectralUnmixer']
