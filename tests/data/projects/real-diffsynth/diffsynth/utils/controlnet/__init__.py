from .controlnet_input import ControlNetInput
from .annotator import Annotator
