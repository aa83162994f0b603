from .modeling_defog import DeFoGMolecularGenerator

__all__ = ['DeFoGMolecularGenerator']