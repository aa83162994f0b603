from .dataloader import DataLoader
from .molprop_loader import MolPropLoader
from .reaction_loader import ReactionLoader

__all__ = ["DataLoader", "MolPropLoader", "ReactionLoader"]
