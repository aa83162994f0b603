from .modeling_gdss import GDSSMolecularGenerator

__all__ = ['GDSSMolecularGenerator']