from .modeling_sgir import SGIRMolecularPredictor

__all__ = ['SGIRMolecularPredictor']