from .stgcn_mw import STGCNModelWrapper
from .stgat_mw import STGATModelWrapper