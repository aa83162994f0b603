from .modeling_molgpt import MolGPTMolecularGenerator

__all__ = ['MolGPTMolecularGenerator']