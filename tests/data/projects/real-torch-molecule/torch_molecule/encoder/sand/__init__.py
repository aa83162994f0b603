from .modeling_sand import SANDMolecularEncoder

__all__ = ["SANDMolecularEncoder"]
