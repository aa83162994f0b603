from .modeling_transformer import SMILESTransformerMolecularPredictor

__all__ = ['SMILESTransformerMolecularPredictor']