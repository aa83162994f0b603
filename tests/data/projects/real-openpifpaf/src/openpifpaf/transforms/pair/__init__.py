"""Transforms for image pairs."""

from .blank_past import BlankPast, PreviousPast, RandomizeOneFrame
from .camera_shift import CameraShift
from .crop import Crop
from .encoders import Encoders
from .image_to_tracking import ImageToTracking
from .pad import Pad
from .sample_pairing import SamplePairing
from .single_image import SingleImage, Ungroup
