from .gcc_dw import GCCDataWrapper
