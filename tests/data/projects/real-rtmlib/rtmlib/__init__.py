from .tools import (RTMO, YOLOX, RFDETR, Animal, Body, BodyWithFeet, Custom, Hand,
                    PoseTracker, RTMDet, RTMPose, RTMPose3d, ViTPose,
                    Wholebody, Wholebody3d)
from .visualization.draw import draw_bbox, draw_skeleton

__all__ = [
    'YOLOX', 'RTMDet', 'RFDETR', 'RTMPose', 'RTMO', 'RTMPose3d', 'ViTPose',
    'PoseTracker', 'Wholebody', 'Wholebody3d', 'Body', 'Hand', 'BodyWithFeet',
    'Animal', 'Custom', 'draw_skeleton', 'draw_bbox'
]
