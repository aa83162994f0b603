"""minimal_pytorch_rasterizer is a CUDA non-differentiable mesh rasterization
library for pytorch tensors with python bindings.

These codes brought from
`https://github.com/rmbashirov/minimal_pytorch_rasterizer`.
"""
