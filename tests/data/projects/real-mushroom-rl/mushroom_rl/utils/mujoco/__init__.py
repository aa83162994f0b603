from .viewer import MujocoViewer
from .observation_helper import ObservationHelper, ObservationType
from .kinematics import forward_kinematics
