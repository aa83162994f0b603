from .optim import CircuitOptimizer
from .full_batch_em import FullBatchEM
from .mini_batch_em import MiniBatchEM
from .anemone import Anemone
from .sgd import SGD
from .adam import Adam
