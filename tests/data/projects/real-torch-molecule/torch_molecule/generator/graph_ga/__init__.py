from .modeling_graph_ga import GraphGAMolecularGenerator

__all__ = ['GraphGAMolecularGenerator']