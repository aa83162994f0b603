__all__ = [
    # Signal methods
    'down_mix', 'filtfilt', 'rf2iq', 'matched_filter', 'normalize',
    # Doppler methods
    'apply_wall_filter', 'spatial_smoothing', 'get_color_doppler_map',
    'get_power_doppler_map',
    # Display methods
    'to_b_mode', 'get_spectrum',
    # Post-processing methods
    'distort_dynamic',
]

from .signal import down_mix, filtfilt, rf2iq, matched_filter, normalize
from .doppler import (apply_wall_filter, spatial_smoothing,
                      get_color_doppler_map, get_power_doppler_map)
from .display import to_b_mode, get_spectrum
from .post_processing import distort_dynamic
