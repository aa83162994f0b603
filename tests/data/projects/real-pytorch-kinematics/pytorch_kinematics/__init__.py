from pytorch_kinematics.sdf import *
from pytorch_kinematics.urdf import *

try:
    from pytorch_kinematics.mjcf import *
except ImportError:
    pass
from pytorch_kinematics.transforms import *
from pytorch_kinematics.chain import *
from pytorch_kinematics.ik import *
