from . import actuation, contacts
from .aba import aba
from .aba_parallel import aba_parallel
from .collidable_points import collidable_points_pos_vel
from .crba import crba
from .forward_kinematics import forward_kinematics_model
from .forward_kinematics_parallel import forward_kinematics_model_parallel
from .jacobian import (
    jacobian,
    jacobian_derivative_full_doubly_left,
    jacobian_full_doubly_left,
)
from .kinematic_constraints import compute_constraint_wrenches
from .mass_inverse import mass_inverse
from .rnea import rnea
