"""
Copyright © 2023 Howard Hughes Medical Institute, Authored by Carsen Stringer and Marius Pachitariu.
"""
from .detect import detection_wrapper, bin_movie
from .stats import roi_stats, assign_overlaps
