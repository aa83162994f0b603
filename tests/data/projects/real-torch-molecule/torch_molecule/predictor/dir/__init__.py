from .modeling_dir import DIRMolecularPredictor

__all__ = ['DIRMolecularPredictor']