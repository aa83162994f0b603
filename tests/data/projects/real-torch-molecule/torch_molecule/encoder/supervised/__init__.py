from .modeling_supervised import SupervisedMolecularEncoder

__all__ = ['SupervisedMolecularEncoder']