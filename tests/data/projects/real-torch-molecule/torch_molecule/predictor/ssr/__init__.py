from .modeling_ssr import SSRMolecularPredictor

__all__ = ['SSRMolecularPredictor']