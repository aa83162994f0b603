from .rtmo import RTMO
from .rtmpose import RTMPose
from .rtmpose3d import RTMPose3d
from .vitpose import ViTPose

__all__ = ['RTMPose', 'RTMO', 'RTMPose3d', 'ViTPose']
