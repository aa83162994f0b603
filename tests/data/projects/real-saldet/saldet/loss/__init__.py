from ._factory import create_criterion
from .edge_saliency_loss import EdgeSaliencyLoss
from .multi_bce import MultiBCELoss
from .pg import PGLoss
