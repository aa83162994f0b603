from .graph.pose_flattener import PoseFlattener
from .graph.decoupled_gcn import DecoupledGCN
from .graph.st_gcn import STGCN
from .graph.sgn import SGN

from .cnn2d import CNN2D
from .cnn3d import CNN3D

__all__ = ["PoseFlattener", "DecoupledGCN", "STGCN", "SGN", "CNN2D", "CNN3D"]
