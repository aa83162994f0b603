from .muq import MuQ, MuQConfig
from .muq_mulan import MuQMuLan, MuQMuLanConfig