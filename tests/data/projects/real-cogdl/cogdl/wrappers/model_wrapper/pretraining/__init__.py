from .gcc_mw import GCCModelWrapper
