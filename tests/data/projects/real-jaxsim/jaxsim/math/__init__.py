from .adjoint import Adjoint
from .cross import Cross
from .inertia import Inertia
from .quaternion import Quaternion
from .rotation import Rotation
from .skew import Skew
from .transform import Transform
from .utils import safe_norm

from .joint_model import JointModel, supported_joint_motion  # isort:skip

# Define the default standard gravity constant.
STANDARD_GRAVITY = 9.81
