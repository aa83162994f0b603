from .MTCNN_test import MTCNN  # noqa: F401
