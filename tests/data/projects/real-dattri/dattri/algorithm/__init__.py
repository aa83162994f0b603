"""dattri.algorithm for some data attribution methods."""

from .block_projected_if.block_projected_if import BlockProjectedIFAttributor
from .data_shapley import KNNShapleyAttributor
from .dvemb import DVEmbAttributor
from .factgrass import FactGraSSAttributor
from .influence_function import (
    IFAttributorArnoldi,
    IFAttributorCG,
    IFAttributorDataInf,
    IFAttributorEKFAC,
    IFAttributorExplicit,
    IFAttributorLiSSA,
)
from .logra import LoGraAttributor
from .rps import RPSAttributor
from .tracin import TracInAttributor
from .trak import TRAKAttributor

__all__ = [
    "BlockProjectedIFAttributor",
    "DVEmbAttributor",
    "FactGraSSAttributor",
    "IFAttributorArnoldi",
    "IFAttributorCG",
    "IFAttributorDataInf",
    "IFAttributorEKFAC",
    "IFAttributorExplicit",
    "IFAttributorLiSSA",
    "KNNShapleyAttributor",
    "LoGraAttributor",
    "RPSAttributor",
    "TRAKAttributor",
    "TracInAttributor",
]
