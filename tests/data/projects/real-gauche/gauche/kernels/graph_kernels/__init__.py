from .grakel_kernels import (
    EdgeHistogramKernel,
    GraphletSamplingKernel,
    NeighborhoodHashKernel,
    RandomWalkKernel,
    RandomWalkLabeledKernel,
    ShortestPathKernel,
    ShortestPathLabeledKernel,
    VertexHistogramKernel,
    WeisfeilerLehmanKernel,
)

__all__ = [
    "VertexHistogramKernel",
    "EdgeHistogramKernel",
    "WeisfeilerLehmanKernel",
    "NeighborhoodHashKernel",
    "RandomWalkKernel",
    "RandomWalkLabeledKernel",
    "ShortestPathKernel",
    "ShortestPathLabeledKernel",
    "GraphletSamplingKernel",
]
