from .trainer import Trainer
from .torch_setup import setup
from .training_state import load_training_state, save_training_state
from .incremental import IncrementalFNOTrainer
from .adamw import AdamW
