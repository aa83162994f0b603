from .entanglement import (
    EntangleLinear,
    EntanglePairwise,
    EntangleFull,
    EntangleCircular,
    EntanglementLayer,
    Op2QDenseLayer,
)
from .op2_layer import Op2QAllLayer, Op2QFit32Layer, Op2QButterflyLayer
