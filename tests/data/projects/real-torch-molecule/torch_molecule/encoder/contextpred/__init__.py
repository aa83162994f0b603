from .modeling_contextpred import ContextPredMolecularEncoder

__all__ = ['ContextPredMolecularEncoder']