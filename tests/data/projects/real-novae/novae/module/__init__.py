from .aggregate import AttentionAggregation
from .embed import CellEmbedder
from .augment import GraphAugmentation
from .encode import GraphEncoder
from .swav import SwavHead
