from .fem_solver import FEMSolver
from .kinematic_solver import KinematicSolver
from .mpm_solver import MPMSolver
from .pbd_solver import PBDSolver
from .rigid.rigid_solver import RigidSolver
from .sf_solver import SFSolver
from .sph_solver import SPHSolver
from .tool_solver import ToolSolver
