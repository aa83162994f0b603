"""
Implementation of embedding layers for PTF models imported from `nn.Modules`
"""

from pytorch_forecasting.layers._embeddings._data_embedding import (
    DataEmbedding_inverted,
)
from pytorch_forecasting.layers._embeddings._en_embedding import EnEmbedding
from pytorch_forecasting.layers._embeddings._positional_embedding import (
    PositionalEmbedding,
)
from pytorch_forecasting.layers._embeddings._sub_nn import embedding_cat_variables

__all__ = [
    "PositionalEmbedding",
    "DataEmbedding_inverted",
    "EnEmbedding",
    "embedding_cat_variables",
]
