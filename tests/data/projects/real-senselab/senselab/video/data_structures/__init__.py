"""This module provides the API of the senselab video data structures."""

from .pose import (  # noqa: F401
    ImagePose,
    IndividualPose,
    MediaPipePoseLandmark,
    PoseLandmark,
    PoseModel,
    YOLOPoseLandmark,
)
from .video import Video  # noqa: F401
