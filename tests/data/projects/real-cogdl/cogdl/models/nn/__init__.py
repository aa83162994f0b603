from .compgcn import CompGCN
from .dgi import DGIModel
from .disengcn import DisenGCN
from .gcn import GCN
from .gcnii import GCNII
from .gdc_gcn import GDC_GCN
from .grace import GRACE
from .graphsage import Graphsage, SAGE
from .mvgrl import MVGRL
from .patchy_san import PatchySAN
from .ppnp import PPNP
from .rgcn import RGCN
from .sgc import sgc
from .revgcn import RevGCN, RevGEN, RevGAT
from .deepergcn import DeeperGCN, ResGNNLayer
from .stgcn import STGCN
from .stgat import STGAT

__all__ = [
    "CompGCN",
    "DGIModel",
    "DisenGCN",
    "GCN",
    "GCNII",
    "GDC_GCN",
    "GRACE",
    "Graphsage",
    "MVGRL",
    "PatchySAN",
    "PPNP",
    "RGCN",
    "sgc",
    "RevGCN",
    "RevGAT",
    "RevGEN",
    "DeeperGCN",
    "ResGNNLayer",
    "SAGE",
    "STGCN",
    "STGAT",
]
