"""2.5D ERT forward operators."""

from adtlert.forward.autograd import (
    ERT2p5DApparentResistivityFunction,
    ERT3DApparentResistivityFunction,
    ERTApparentResistivityFunction,
    apparent_resistivity_autograd,
)
from adtlert.forward.ert2p5d import ERTForward2p5D, ForwardResponse
from adtlert.forward.ert3d import ERTForward3D, ForwardResponse3D
from adtlert.forward.integration import (
    CosineTransformWeights,
    build_inverse_cosine_weights,
)
from adtlert.forward.modeling import (
    ERTForwardModeling,
    MappedERTForwardModeling,
    mesh_to_adtlert,
    survey_to_adtlert,
)

__all__ = [
    "CosineTransformWeights",
    "ERT2p5DApparentResistivityFunction",
    "ERT3DApparentResistivityFunction",
    "ERTApparentResistivityFunction",
    "ERTForward2p5D",
    "ERTForward3D",
    "ERTForwardModeling",
    "ForwardResponse",
    "ForwardResponse3D",
    "MappedERTForwardModeling",
    "apparent_resistivity_autograd",
    "build_inverse_cosine_weights",
    "mesh_to_adtlert",
    "survey_to_adtlert",
]
