from .modeling_grea import GREAMolecularPredictor

__all__ = ['GREAMolecularPredictor']