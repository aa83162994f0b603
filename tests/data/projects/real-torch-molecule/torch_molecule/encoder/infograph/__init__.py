from .modeling_infograph import InfoGraphMolecularEncoder

__all__ = ['InfoGraphMolecularEncoder']