from SAC_pytorch.SAC import (
    SAC,
    Actor,
    Critic,
    TransformerCritic,
    MultipleCritics,
    MultipleQuantileCritics,
)

from SAC_pytorch.world_model import (
    WorldModel,
)
