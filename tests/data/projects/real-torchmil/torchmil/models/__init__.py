from .mil_model import MILModel as MILModel, MILModelWrapper as MILModelWrapper

from .abmil import ABMIL as ABMIL
from .transformer_abmil import TransformerABMIL as TransformerABMIL

from .sm_abmil import SmABMIL as SmABMIL
from .sm_transformer_abmil import SmTransformerABMIL as SmTransformerABMIL

from .prob_smooth_abmil import (
    ProbSmoothABMIL as ProbSmoothABMIL,
    SmoothABMIL as SmoothABMIL,
)

from .transformer_prob_smooth_abmil import (
    TransformerProbSmoothABMIL as TransformerProbSmoothABMIL,
)

from .clam import CLAM_SB as CLAM_SB
from .dsmil import DSMIL as DSMIL
from .dtfdmil import DTFDMIL as DTFDMIL
from .patch_gcn import PatchGCN as PatchGCN
from .deepgraphsurv import DeepGraphSurv as DeepGraphSurv

from .transmil import TransMIL as TransMIL
from .camil import CAMIL as CAMIL
from .iibmil import IIBMIL as IIBMIL
from .setmil import SETMIL as SETMIL
from .gtp import GTP as GTP
from .vaeabmil import VAEABMIL as VAEABMIL
