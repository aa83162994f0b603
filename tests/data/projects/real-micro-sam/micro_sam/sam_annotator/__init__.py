"""The interactive annotation tools.
"""

from .annotator_2d import annotator_2d
from .annotator_3d import annotator_3d
from .annotator_tracking import annotator_tracking
from .image_series_annotator import image_folder_annotator, image_series_annotator
# from .object_classifier import object_classifier
