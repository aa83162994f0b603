from .Retinaface_model import RetinaFace  # noqa: F401
from .Retinaface_test import Retinaface  # noqa: F401
