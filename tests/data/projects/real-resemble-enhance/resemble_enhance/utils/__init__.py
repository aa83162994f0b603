from .distributed import global_leader_only
from .engine import Engine, gather_attribute
from .logging import setup_logging
from .train_loop import TrainLoop, is_global_leader
from .utils import save_mels, tree_map
