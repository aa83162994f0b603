from .decoupled_gcn import DecoupledGCN
from .pose_flattener import PoseFlattener
from .sgn import SGN
from .st_gcn import STGCN
