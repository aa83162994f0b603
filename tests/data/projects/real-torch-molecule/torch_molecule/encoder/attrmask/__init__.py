from .modeling_attrmask import AttrMaskMolecularEncoder

__all__ = ['AttrMaskMolecularEncoder']