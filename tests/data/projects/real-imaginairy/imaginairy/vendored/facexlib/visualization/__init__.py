from .vis_alignment import visualize_alignment
from .vis_detection import visualize_detection
from .vis_headpose import visualize_headpose

__all__ = ['visualize_detection', 'visualize_alignment', 'visualize_headpose']
