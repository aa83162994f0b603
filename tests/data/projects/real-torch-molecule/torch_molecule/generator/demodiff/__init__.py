from .modeling_demodiff import DemoDiffMolecularGenerator

__all__ = ["DemoDiffMolecularGenerator"]
