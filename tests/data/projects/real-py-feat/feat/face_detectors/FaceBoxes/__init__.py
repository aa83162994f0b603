from .FaceBoxes_test import FaceBoxes  # noqa: F401
