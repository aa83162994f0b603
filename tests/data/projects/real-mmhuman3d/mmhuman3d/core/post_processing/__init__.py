from .builder import build_post_processing
from .smooth.gaus1d_filter import Gaus1dFilter
from .smooth.oneeuro_filter import OneEuroFilter
from .smooth.savgol_filter import SGFilter
from .smooth.smoothnet import SmoothNetFilter
from .speed_up.deciwatch import DeciWatchPostProcessing

__all__ = [
    'build_post_processing',
    'OneEuroFilter',
    'SGFilter',
    'Gaus1dFilter',
    'SmoothNetFilter',
    'DeciWatchPostProcessing',
]
