from . import defaults, frame_labels  # noqa : F401
from .transforms import *  # noqa : F403
