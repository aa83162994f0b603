from .abmap_augment import ProteinEmbedding, augment_from_fasta
from .plm_embed import reload_models_to_device
from .model import AbMAPAttn, AbMAPLSTM, ddGPredictor, PropertyPredictorAttn
from .commands.embed import load_abmap, abmap_embed, abmap_embed_batch

from .version import version as __version__

# __citation__ = """"""
from . import (
    commands,
)

__all__ = [
    "commands",
    "model",
    "utils",
]
