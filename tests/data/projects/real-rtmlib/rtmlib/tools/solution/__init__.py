from .animal import Animal
from .body import Body
from .body_with_feet import BodyWithFeet
from .custom import Custom
from .hand import Hand
from .pose_tracker import PoseTracker
from .wholebody import Wholebody
from .wholebody3d import Wholebody3d

__all__ = [
    'Wholebody', 'Wholebody3d', 'Body', 'PoseTracker', 'Hand', 'BodyWithFeet',
    'Animal', 'Custom'
]
