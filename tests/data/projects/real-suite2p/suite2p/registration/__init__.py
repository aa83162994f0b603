"""
Copyright © 2023 Howard Hughes Medical Institute, Authored by Carsen Stringer and Marius Pachitariu.
"""
from .register import registration_wrapper
from .metrics import get_pc_metrics
from .zalign import compute_zpos
from .utils import highpass_mean_image
