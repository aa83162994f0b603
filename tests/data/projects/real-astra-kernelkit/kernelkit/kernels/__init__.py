from .cone_fp import RayDrivenConeFP
from .cone_bp import VoxelDrivenConeBP
