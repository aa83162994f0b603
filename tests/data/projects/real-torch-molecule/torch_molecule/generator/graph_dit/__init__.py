from .modeling_graph_dit import GraphDITMolecularGenerator

__all__ = ['GraphDITMolecularGenerator']