from .modeling_pretrained import HFPretrainedMolecularEncoder

__all__ = ['HFPretrainedMolecularEncoder']