from .train import checkpoints, eval, loss, metrics
from .train.run import run
from .train.trainer import fit

__all__ = ["checkpoints", "loss", "metrics", "fit", "run", "eval"]
