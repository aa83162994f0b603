from .utils import seed_everything, save_wave, get_time, get_duration, read_list
from .pipeline import *
