from .visualize_keypoints2d import visualize_kp2d  # noqa:F401
from .visualize_keypoints3d import visualize_kp3d  # noqa:F401
