from .adam import RiemannianAdam
from .sgd import RiemannianSGD
