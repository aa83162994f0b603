from improving_transformers_world_model.world_model import (
    BlockCausalAttention,
    BlockCausalTransformer,
    NearestNeighborTokenizer,
    WorldModel
)

from improving_transformers_world_model.agent import (
    Agent,
    Impala
)
