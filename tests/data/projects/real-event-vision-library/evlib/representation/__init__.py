"""Various representation of event data.
"""

from .histogram import Histogram # isort:skip
from .time_map import TimeMap # isort:skip
from .voxel_grid import VoxelGrid # isort:skip
