from .stgcn_dw import STGCNDataWrapper
from .stgat_dw import STGATDataWrapper
