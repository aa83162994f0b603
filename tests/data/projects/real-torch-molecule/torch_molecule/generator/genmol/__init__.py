from .modeling_genmol import GenMolMolecularGenerator

__all__ = ["GenMolMolecularGenerator"]
