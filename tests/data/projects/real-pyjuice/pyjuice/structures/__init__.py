from .hclt import HCLT
from .hmm import HMM, GeneralizedHMM
from .pd import PD, PDHCLT
from .rat_spn import RAT_SPN
