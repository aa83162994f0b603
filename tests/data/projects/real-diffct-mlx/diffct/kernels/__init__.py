"""CUDA kernels for CT projections.

This subpackage contains CUDA kernels for 2D and 3D CT forward projection
and backprojection operations.
"""

from .parallel_beam import (
    _parallel_2d_forward_kernel,
    _parallel_2d_backward_kernel,
    _parallel_2d_fbp_backproject_kernel,
)

from .fan_beam import (
    _fan_2d_forward_kernel,
    _fan_2d_backward_kernel,
    _fan_2d_fbp_backproject_kernel,
)

from .cone_beam import (
    _cone_3d_forward_kernel,
    _cone_3d_backward_kernel,
    _cone_3d_fdk_backproject_kernel,
    _cone_3d_geometry_grad_kernel,
)

__all__ = [
    '_parallel_2d_forward_kernel',
    '_parallel_2d_backward_kernel',
    '_parallel_2d_fbp_backproject_kernel',
    '_fan_2d_forward_kernel',
    '_fan_2d_backward_kernel',
    '_fan_2d_fbp_backproject_kernel',
    '_cone_3d_forward_kernel',
    '_cone_3d_backward_kernel',
    '_cone_3d_fdk_backproject_kernel',
    '_cone_3d_geometry_grad_kernel',
]
