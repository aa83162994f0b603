from .autoflow import AutoFlow
from .base_dataset import BaseDataset
from .driving import Driving
from .flying_chairs import FlyingChairs
from .flying_things3d import FlyingThings3D, FlyingThings3DSubset
from .hd1k import HD1K
from .kitti import Kitti
from .kubric import Kubric
from .monkaa import Monkaa
from .mpi_sintel import MPISintel
