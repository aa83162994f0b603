from .modeling_digress import DigressMolecularGenerator

__all__ = ["DigressMolecularGenerator"]