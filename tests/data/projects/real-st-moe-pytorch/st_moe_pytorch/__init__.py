from st_moe_pytorch.st_moe_pytorch import (
    MoE,
    SparseMoEBlock
)
