from .eval import eval_model
from .profiler import Profiler
from .pruning import prune_l1_structured, prune_l1_unstructured
from .registry import *
from .retrieve import get_training_cfg
from .trainer import DistributedTrainer, Trainer
