from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("xlb")
except PackageNotFoundError:
    __version__ = "0.0.0"

# Enum classes
from xlb.compute_backend import ComputeBackend as ComputeBackend
from xlb.precision_policy import PrecisionPolicy as PrecisionPolicy, Precision as Precision
from xlb.physics_type import PhysicsType as PhysicsType

# Config
from .default_config import init as init, DefaultConfig as DefaultConfig

# Velocity Set
import xlb.velocity_set

# Operators
import xlb.operator.equilibrium
import xlb.operator.collision
import xlb.operator.stream
import xlb.operator.boundary_condition
import xlb.operator.macroscopic
import xlb.operator.postprocess

# Grids
import xlb.grid

# Solvers
import xlb.helper

# Utils
import xlb.utils

# Distributed computing
import xlb.distribute
