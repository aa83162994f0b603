from gridfm_graphkit.models.gnn_heterogeneous_gns import GNS_heterogeneous
from gridfm_graphkit.models.grit_transformer import GritHeteroAdapter
from gridfm_graphkit.models.utils import (
    PhysicsDecoderOPF,
    PhysicsDecoderPF,
    PhysicsDecoderSE,
)

__all__ = [
    "GNS_heterogeneous",
    "GritHeteroAdapter",
    "PhysicsDecoderOPF",
    "PhysicsDecoderPF",
    "PhysicsDecoderSE",
]
