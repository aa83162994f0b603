from .object_detection import YOLOX, RTMDet, RFDETR
from .pose_estimation import RTMO, RTMPose, RTMPose3d, ViTPose
from .solution import (Animal, Body, BodyWithFeet, Custom, Hand, PoseTracker,
                       Wholebody, Wholebody3d)

__all__ = [
    'YOLOX', 'RTMDet', 'RFDETR', 'RTMPose', 'RTMO', 'RTMPose3d', 'ViTPose',
    'PoseTracker', 'Wholebody', 'Wholebody3d', 'Body', 'Hand', 'BodyWithFeet',
    'Animal', 'Custom'
]
