from .modeling_jtvae import JTVAEMolecularGenerator

__all__ = ['JTVAEMolecularGenerator']