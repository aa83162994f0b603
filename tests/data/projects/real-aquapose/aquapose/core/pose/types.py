"""Type definitions for the Pose stage.

AnnotatedDetection has been removed. Detection objects now carry keypoints
directly via det.keypoints and det.keypoint_conf fields added in Phase 81.
"""

__all__: list[str] = []
