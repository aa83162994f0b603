from .modeling_pretrained import HFPretrainedMolecularGenerator

__all__ = ["HFPretrainedMolecularGenerator"]
