from .rsgd import RiemannianSGD
from .radam import RiemannianAdam
from .sparse_radam import SparseRiemannianAdam
from .sparse_rsgd import SparseRiemannianSGD
from .rlinesearch import RiemannianLineSearch
