from .manifold_parameter import ManifoldParameter
from .manifold_tensor import ManifoldTensor
from .tangent_tensor import TangentTensor
