"""Public API for Graph connectivity and neighborhood logic.

This module exposes core graph types used to define spatial relationships
between points, such as fixed-radius and k-nearest neighbor (KNN) structures.
"""

from pina._src.core.graph import Graph, RadiusGraph, KNNGraph

__all__ = [
    "Graph",
    "RadiusGraph",
    "KNNGraph",
]
