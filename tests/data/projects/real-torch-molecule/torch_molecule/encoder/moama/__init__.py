from .modeling_moama import MoamaMolecularEncoder

__all__ = ['MoamaMolecularEncoder']