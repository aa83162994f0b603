from .agg import PositionAwareAggregator
from .diff_transformer import (
    DiffTransformerBlock,
    DiffTransformerLayer,
)
from .model import SasRec, SasRecBody
from .transformer import SasRecTransformerLayer
