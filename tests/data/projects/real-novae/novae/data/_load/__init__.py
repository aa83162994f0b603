from .hf import load_dataset
from .toy import toy_dataset
from ._wandb import _load_wandb_artifact
from .local import load_local_dataset
