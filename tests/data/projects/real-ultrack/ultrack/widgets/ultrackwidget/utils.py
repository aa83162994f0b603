from enum import Enum


class UltrackInput(Enum):
    IMAGE = "image"
    CONTOURS = "contours"
    DETECTION = "detection"
    LABELS = "labels"
