"""
Spreading and interpolation operations for NUFFT.

Spreading (Type 1): Scatter nonuniform point values to a uniform grid.
Interpolation (Type 2): Gather uniform grid values at nonuniform points.

These are the computationally intensive core operations of NUFFT.
The implementation uses pure JAX operations to enable automatic differentiation.

Reference: FINUFFT src/spreadinterp.cpp
"""

import os
from functools import partial

import jax
import jax.numpy as jnp

from .kernel import Kernel, KernelParams, es_kernel_spec


# ============================================================================
# Pallas GPU backend detection
# ============================================================================

_HAS_PALLAS_GPU = False
_PALLAS_INTERPRET = False
try:
    from .pallas_spread import (
        INTERPRET as _PALLAS_INTERPRET,
    )
    from .pallas_spread import (
        spread_1d_pallas,
        spread_2d_pallas,
        spread_3d_pallas,
    )

    _HAS_PALLAS_GPU = any(d.platform == "gpu" for d in jax.devices())
except ImportError:
    pass


# Whether to use the fused Pallas GPU spreading kernels. Opt-in via the
# NUFFTAX_PALLAS_BACKEND environment variable (default off): pure JAX is the
# default because it is robust across JAX versions and GPU backends. Set a
# truthy value (1/true/yes/on) to enable the Pallas kernels — much faster
# spreading for large problems on GPU. Pallas additionally requires a GPU
# (Triton); on CPU the pure-JAX path is always used.
def _bool_env(name: str, default: bool) -> bool:
    val = os.environ.get(name)
    if val is None:
        return default
    return val.strip().lower() not in ("0", "false", "no", "off", "")


_USE_PALLAS_SPREAD = _bool_env("NUFFTAX_PALLAS_BACKEND", False)


def _use_pallas(x: jax.Array, c: jax.Array) -> bool:
    """Whether to route this spread to the Pallas kernels.

    Requires the backend enabled (env var) and a GPU — or interpret mode
    (NUFFTAX_PALLAS_INTERPRET, testing only). The Pallas kernels compute in
    float32, so only fully 32-bit inputs (float32 coordinates, complex64
    strengths) take the Pallas path; any 64-bit input (x64 / complex128) falls
    back to pure JAX, which both preserves accuracy and keeps dtypes consistent
    across the AD rules.
    """
    available = _HAS_PALLAS_GPU or _PALLAS_INTERPRET
    return _USE_PALLAS_SPREAD and available and x.dtype == jnp.float32 and c.dtype == jnp.complex64


# ============================================================================
# Helper functions
# ============================================================================


def fold_rescale(x: jax.Array, n: int) -> jax.Array:
    """
    Fold and rescale coordinates from [-pi, pi) to [0, N).

    This maps nonuniform points from the standard NUFFT domain to
    grid indices suitable for spreading/interpolation.

    Args:
        x: Coordinates in [-pi, pi)
        n: Grid size

    Returns:
        Rescaled coordinates in [0, N)
    """
    # Map from [-pi, pi) to [0, 1) then to [0, N)
    inv_2pi = 1.0 / (2.0 * jnp.pi)
    result = x * inv_2pi + 0.5
    # Periodic wrapping to [0, 1)
    result = result - jnp.floor(result)
    return result * n


def _prepare_batched_c(c: jax.Array) -> tuple[jax.Array, int, bool]:
    """Prepare strengths array for batched processing.

    Args:
        c: Strengths array, shape (M,) or (n_trans, M)

    Returns:
        c_flat: Batched array, shape (n_trans, M)
        n_trans: Number of transforms
        is_batched: Whether input was already batched
    """
    if c.ndim == 2:
        return c, c.shape[0], True
    return c[None, :], 1, False


def _prepare_batched_grid_1d(fw: jax.Array) -> tuple[jax.Array, int, int, bool]:
    """Prepare 1D grid array for batched processing.

    Args:
        fw: Grid array, shape (nf,) or (n_trans, nf)

    Returns:
        fw_flat: Batched array, shape (n_trans, nf)
        nf: Grid size
        n_trans: Number of transforms
        is_batched: Whether input was already batched
    """
    if fw.ndim == 2:
        return fw, fw.shape[1], fw.shape[0], True
    return fw[None, :], fw.shape[0], 1, False


def _prepare_batched_grid_2d(fw: jax.Array) -> tuple[jax.Array, int, int, int, bool]:
    """Prepare 2D grid array for batched processing.

    Args:
        fw: Grid array, shape (nf2, nf1) or (n_trans, nf2, nf1)
            Note: Grid has y-dimension first, x-dimension second.

    Returns:
        fw_flat: Flattened batched array, shape (n_trans, nf2*nf1)
        nf1: Grid size in x-direction (second dimension of fw)
        nf2: Grid size in y-direction (first dimension of fw)
        n_trans: Number of transforms
        is_batched: Whether input was already batched
    """
    if fw.ndim == 3:
        n_trans, dim0, dim1 = fw.shape  # dim0=nf2, dim1=nf1
        return fw.reshape(n_trans, dim0 * dim1), dim1, dim0, n_trans, True
    dim0, dim1 = fw.shape  # dim0=nf2, dim1=nf1
    return fw.reshape(1, dim0 * dim1), dim1, dim0, 1, False


def _prepare_batched_grid_3d(fw: jax.Array) -> tuple[jax.Array, int, int, int, int, bool]:
    """Prepare 3D grid array for batched processing.

    Args:
        fw: Grid array, shape (nf3, nf2, nf1) or (n_trans, nf3, nf2, nf1)
            Note: Grid has z-dimension first, y-dimension second, x-dimension last.

    Returns:
        fw_flat: Flattened batched array, shape (n_trans, nf3*nf2*nf1)
        nf1: Grid size in x-direction (last dimension of fw)
        nf2: Grid size in y-direction (second-to-last dimension of fw)
        nf3: Grid size in z-direction (third-to-last dimension of fw)
        n_trans: Number of transforms
        is_batched: Whether input was already batched
    """
    if fw.ndim == 4:
        n_trans, dim0, dim1, dim2 = fw.shape  # dim0=nf3, dim1=nf2, dim2=nf1
        return fw.reshape(n_trans, dim0 * dim1 * dim2), dim2, dim1, dim0, n_trans, True
    dim0, dim1, dim2 = fw.shape  # dim0=nf3, dim1=nf2, dim2=nf1
    return fw.reshape(1, dim0 * dim1 * dim2), dim2, dim1, dim0, 1, False


def _as_kernel(kernel: "Kernel | KernelParams") -> Kernel:
    """Normalize a kernel argument to a :class:`Kernel`.

    Accepts either ``KernelParams`` (built-in ES kernel) or a user-supplied
    ``Kernel``. Idempotent on ``Kernel``.
    """
    if isinstance(kernel, Kernel):
        return kernel
    return es_kernel_spec(kernel)


def compute_kernel_weights_1d(
    x_scaled: jax.Array,
    nf: int,
    kernel_params: "Kernel | KernelParams",
) -> tuple[jax.Array, jax.Array]:
    """
    Compute kernel weights and grid indices for 1D spreading/interpolation.

    For each nonuniform point, computes:
    - The nspread grid indices it affects
    - The corresponding kernel weights

    Args:
        x_scaled: Scaled coordinates in [0, nf), shape (M,)
        nf: Fine grid size
        kernel_params: Kernel parameters (ES) or a custom Kernel

    Returns:
        indices: Grid indices, shape (M, nspread)
        weights: Kernel weights, shape (M, nspread)
    """
    kernel = _as_kernel(kernel_params)
    nspread = kernel.nspread

    # Half kernel width
    ns2 = nspread / 2.0

    # Find the leftmost grid point for each nonuniform point
    # Use ceil to match FINUFFT convention
    i0 = jnp.ceil(x_scaled - ns2).astype(jnp.int32)

    # Compute offsets from leftmost point: 0, 1, ..., nspread-1
    offsets = jnp.arange(nspread)

    # Grid indices for all kernel points: shape (M, nspread)
    indices = i0[:, None] + offsets[None, :]

    # Wrap indices periodically
    indices_wrapped = indices % nf

    # Compute z values for kernel evaluation
    # z = (grid_index - x_scaled) normalized to kernel support
    # The kernel is evaluated at z in [-ns/2, ns/2]
    z = indices.astype(x_scaled.dtype) - x_scaled[:, None]

    # Evaluate kernel
    weights = kernel.value(z)

    return indices_wrapped, weights


def compute_kernel_weights_derivative_1d(
    x_scaled: jax.Array,
    nf: int,
    kernel_params: "Kernel | KernelParams",
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """
    Compute kernel weights, their derivatives, and grid indices.

    Args:
        x_scaled: Scaled coordinates in [0, nf), shape (M,)
        nf: Fine grid size
        kernel_params: Kernel parameters

    Returns:
        indices: Grid indices, shape (M, nspread)
        weights: Kernel weights, shape (M, nspread)
        dweights: Kernel weight derivatives w.r.t. x, shape (M, nspread)
    """
    kernel = _as_kernel(kernel_params)
    nspread = kernel.nspread

    ns2 = nspread / 2.0
    i0 = jnp.ceil(x_scaled - ns2).astype(jnp.int32)
    offsets = jnp.arange(nspread)
    indices = i0[:, None] + offsets[None, :]
    indices_wrapped = indices % nf

    z = indices.astype(x_scaled.dtype) - x_scaled[:, None]

    # Use fused computation for efficiency (computes both in single pass)
    weights, dweights_dz = kernel.value_and_grad(z)
    # Derivative of kernel w.r.t. z, but we need w.r.t. x
    # Since z = grid_idx - x_scaled, dz/dx = -1 (in grid units)
    # And x_scaled = x * nf / (2*pi), so dx_scaled/dx = nf / (2*pi)
    # The negative sign accounts for z = idx - x_scaled
    # The scaling nf/(2*pi) converts from grid to original coordinates
    scale = nf / (2.0 * jnp.pi)
    dweights = -dweights_dz * scale

    return indices_wrapped, weights, dweights


# ============================================================================
# 1D Spreading and Interpolation
# ============================================================================


def spread_1d_impl(
    x: jax.Array,
    c: jax.Array,
    nf: int,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    1D spreading implementation: scatter nonuniform values to grid.

    Mathematical operation:
        fw[k] = sum_j c[j] * phi(k - x[j] * nf / (2*pi))

    where phi is the spreading kernel.

    Args:
        x: Nonuniform point coordinates in [-pi, pi), shape (M,)
        c: Complex strengths at nonuniform points, shape (M,) or (n_trans, M)
        nf: Fine grid size
        kernel_params: Kernel parameters

    Returns:
        fw: Fine grid values, shape (nf,) or (n_trans, nf)
    """
    c_flat, n_trans, is_batched = _prepare_batched_c(c)

    # Scale coordinates to grid units
    x_scaled = fold_rescale(x, nf)

    # Compute kernel weights and indices
    indices, weights = compute_kernel_weights_1d(x_scaled, nf, kernel_params)
    # indices: (M, nspread), weights: (M, nspread)

    # Initialize output grid
    fw = jnp.zeros((n_trans, nf), dtype=c.dtype)

    # For each transform and each nonuniform point, accumulate contribution
    # weighted_c[t, j, k] = c[t, j] * weights[j, k]
    weighted_c = c_flat[:, :, None] * weights[None, :, :]  # (n_trans, M, nspread)

    # Flatten for segment_sum
    # indices_flat: (M * nspread,)
    indices_flat = indices.ravel()
    # weighted_c_flat: (n_trans, M * nspread)
    weighted_c_flat = weighted_c.reshape(n_trans, -1)

    # Use segment_sum for efficient accumulation (faster than add.at)
    def segment_sum_for_one_transform(wc_t):
        return jax.ops.segment_sum(wc_t, indices_flat, num_segments=nf)

    fw = jax.vmap(segment_sum_for_one_transform)(weighted_c_flat)

    if not is_batched:
        fw = fw[0]

    return fw


def interp_1d_impl(
    x: jax.Array,
    fw: jax.Array,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    1D interpolation implementation: gather grid values at nonuniform points.

    Mathematical operation:
        c[j] = sum_k fw[k] * phi(k - x[j] * nf / (2*pi))

    Args:
        x: Nonuniform point coordinates in [-pi, pi), shape (M,)
        fw: Fine grid values, shape (nf,) or (n_trans, nf)
        kernel_params: Kernel parameters

    Returns:
        c: Interpolated values at nonuniform points, shape (M,) or (n_trans, M)
    """
    fw_flat, nf, _, is_batched = _prepare_batched_grid_1d(fw)

    # Scale coordinates to grid units
    x_scaled = fold_rescale(x, nf)

    # Compute kernel weights and indices
    indices, weights = compute_kernel_weights_1d(x_scaled, nf, kernel_params)
    # indices: (M, nspread), weights: (M, nspread)

    # Gather grid values at kernel support points
    # fw_gathered[t, j, k] = fw[t, indices[j, k]]
    fw_gathered = fw_flat[:, indices]  # (n_trans, M, nspread)

    # Apply kernel weights and sum over kernel support
    # c[t, j] = sum_k fw_gathered[t, j, k] * weights[j, k]
    c = jnp.sum(fw_gathered * weights[None, :, :], axis=-1)  # (n_trans, M)

    if not is_batched:
        c = c[0]

    return c


# ============================================================================
# 2D Spreading and Interpolation
# ============================================================================


def compute_kernel_weights_2d(
    x_scaled: jax.Array,
    y_scaled: jax.Array,
    nf1: int,
    nf2: int,
    kernel_params: "Kernel | KernelParams",
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """
    Compute kernel weights and grid indices for 2D spreading/interpolation.

    Returns separate 1D indices and weights for each dimension, to be combined
    via outer product.

    Args:
        x_scaled: Scaled x coordinates in [0, nf1), shape (M,)
        y_scaled: Scaled y coordinates in [0, nf2), shape (M,)
        nf1, nf2: Fine grid sizes
        kernel_params: Kernel parameters

    Returns:
        indices_x: X grid indices, shape (M, nspread)
        indices_y: Y grid indices, shape (M, nspread)
        weights_x: X kernel weights, shape (M, nspread)
        weights_y: Y kernel weights, shape (M, nspread)
    """
    kernel = _as_kernel(kernel_params)
    nspread = kernel.nspread

    ns2 = nspread / 2.0
    offsets = jnp.arange(nspread)

    # X dimension
    i0_x = jnp.ceil(x_scaled - ns2).astype(jnp.int32)
    indices_x = (i0_x[:, None] + offsets[None, :]) % nf1
    z_x = (i0_x[:, None] + offsets[None, :]).astype(x_scaled.dtype) - x_scaled[:, None]
    weights_x = kernel.value(z_x)

    # Y dimension
    i0_y = jnp.ceil(y_scaled - ns2).astype(jnp.int32)
    indices_y = (i0_y[:, None] + offsets[None, :]) % nf2
    z_y = (i0_y[:, None] + offsets[None, :]).astype(y_scaled.dtype) - y_scaled[:, None]
    weights_y = kernel.value(z_y)

    return indices_x, indices_y, weights_x, weights_y


def spread_2d_impl(
    x: jax.Array,
    y: jax.Array,
    c: jax.Array,
    nf1: int,
    nf2: int,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    2D spreading implementation: scatter nonuniform values to grid.

    Args:
        x: Nonuniform x coordinates in [-pi, pi), shape (M,)
        y: Nonuniform y coordinates in [-pi, pi), shape (M,)
        c: Complex strengths, shape (M,) or (n_trans, M)
        nf1, nf2: Fine grid sizes
        kernel_params: Kernel parameters

    Returns:
        fw: Fine grid values, shape (nf2, nf1) or (n_trans, nf2, nf1)
    """
    c_flat, n_trans, is_batched = _prepare_batched_c(c)

    # Scale coordinates
    x_scaled = fold_rescale(x, nf1)
    y_scaled = fold_rescale(y, nf2)

    # Get kernel weights and indices for each dimension
    indices_x, indices_y, weights_x, weights_y = compute_kernel_weights_2d(x_scaled, y_scaled, nf1, nf2, kernel_params)

    # Initialize output grid (nf2, nf1) to match indexing: indices_y*nf1 + indices_x
    fw = jnp.zeros((n_trans, nf2, nf1), dtype=c.dtype)

    # For 2D, we need to scatter to nspread x nspread points per nonuniform point
    # Compute 2D indices as linear indices into flattened grid
    # indices_2d[j, dy, dx] = indices_y[j, dy] * nf1 + indices_x[j, dx]
    indices_2d = indices_y[:, :, None] * nf1 + indices_x[:, None, :]  # (M, nspread, nspread)

    # Compute 2D weights as outer product
    # weights_2d[j, dy, dx] = weights_y[j, dy] * weights_x[j, dx]
    weights_2d = weights_y[:, :, None] * weights_x[:, None, :]  # (M, nspread, nspread)

    # Weighted contributions
    weighted_c = c_flat[:, :, None, None] * weights_2d[None, :, :, :]  # (n_trans, M, nspread, nspread)

    # Flatten for segment_sum
    indices_flat = indices_2d.ravel()  # (M * nspread * nspread,)
    weighted_c_flat = weighted_c.reshape(n_trans, -1)  # (n_trans, M * nspread * nspread)

    # Use segment_sum for efficient accumulation (faster than add.at)
    def segment_sum_for_one_transform(wc_t):
        return jax.ops.segment_sum(wc_t, indices_flat, num_segments=nf1 * nf2)

    fw_flat = jax.vmap(segment_sum_for_one_transform)(weighted_c_flat)
    fw = fw_flat.reshape(n_trans, nf2, nf1)

    if not is_batched:
        fw = fw[0]

    return fw


def interp_2d_impl(
    x: jax.Array,
    y: jax.Array,
    fw: jax.Array,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    2D interpolation implementation: gather grid values at nonuniform points.

    Args:
        x: Nonuniform x coordinates in [-pi, pi), shape (M,)
        y: Nonuniform y coordinates in [-pi, pi), shape (M,)
        fw: Fine grid values, shape (nf1, nf2) or (n_trans, nf1, nf2)
        kernel_params: Kernel parameters

    Returns:
        c: Interpolated values, shape (M,) or (n_trans, M)
    """
    fw_flat, nf1, nf2, _, is_batched = _prepare_batched_grid_2d(fw)
    M = x.shape[0]

    # Scale coordinates
    x_scaled = fold_rescale(x, nf1)
    y_scaled = fold_rescale(y, nf2)

    # Get kernel weights and indices
    indices_x, indices_y, weights_x, weights_y = compute_kernel_weights_2d(x_scaled, y_scaled, nf1, nf2, kernel_params)

    # Compute 2D indices and weights
    indices_2d = indices_y[:, :, None] * nf1 + indices_x[:, None, :]  # (M, nspread, nspread)
    weights_2d = weights_y[:, :, None] * weights_x[:, None, :]

    # Gather values
    # fw_gathered[t, j, dy, dx] = fw_flat[t, indices_2d[j, dy, dx]]
    indices_flat = indices_2d.ravel()
    fw_gathered = fw_flat[:, indices_flat].reshape(-1, M, kernel_params.nspread, kernel_params.nspread)

    # Apply weights and sum
    c = jnp.sum(fw_gathered * weights_2d[None, :, :, :], axis=(-2, -1))

    if not is_batched:
        c = c[0]

    return c


# ============================================================================
# 3D Spreading and Interpolation
# ============================================================================


def compute_kernel_weights_3d(
    x_scaled: jax.Array,
    y_scaled: jax.Array,
    z_scaled: jax.Array,
    nf1: int,
    nf2: int,
    nf3: int,
    kernel_params: "Kernel | KernelParams",
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array, jax.Array, jax.Array]:
    """
    Compute kernel weights and grid indices for 3D spreading/interpolation.

    Args:
        x_scaled, y_scaled, z_scaled: Scaled coordinates, shape (M,) each
        nf1, nf2, nf3: Fine grid sizes
        kernel_params: Kernel parameters

    Returns:
        indices_x, indices_y, indices_z: Grid indices, shape (M, nspread) each
        weights_x, weights_y, weights_z: Kernel weights, shape (M, nspread) each
    """
    kernel = _as_kernel(kernel_params)
    nspread = kernel.nspread

    ns2 = nspread / 2.0
    offsets = jnp.arange(nspread)

    # X dimension
    i0_x = jnp.ceil(x_scaled - ns2).astype(jnp.int32)
    indices_x = (i0_x[:, None] + offsets[None, :]) % nf1
    z_x = (i0_x[:, None] + offsets[None, :]).astype(x_scaled.dtype) - x_scaled[:, None]
    weights_x = kernel.value(z_x)

    # Y dimension
    i0_y = jnp.ceil(y_scaled - ns2).astype(jnp.int32)
    indices_y = (i0_y[:, None] + offsets[None, :]) % nf2
    z_y = (i0_y[:, None] + offsets[None, :]).astype(y_scaled.dtype) - y_scaled[:, None]
    weights_y = kernel.value(z_y)

    # Z dimension
    i0_z = jnp.ceil(z_scaled - ns2).astype(jnp.int32)
    indices_z = (i0_z[:, None] + offsets[None, :]) % nf3
    z_z = (i0_z[:, None] + offsets[None, :]).astype(z_scaled.dtype) - z_scaled[:, None]
    weights_z = kernel.value(z_z)

    return indices_x, indices_y, indices_z, weights_x, weights_y, weights_z


def spread_3d_impl(
    x: jax.Array,
    y: jax.Array,
    z: jax.Array,
    c: jax.Array,
    nf1: int,
    nf2: int,
    nf3: int,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    3D spreading implementation: scatter nonuniform values to grid.

    Args:
        x, y, z: Nonuniform coordinates in [-pi, pi), shape (M,) each
        c: Complex strengths, shape (M,) or (n_trans, M)
        nf1, nf2, nf3: Fine grid sizes
        kernel_params: Kernel parameters

    Returns:
        fw: Fine grid values, shape (nf1, nf2, nf3) or (n_trans, nf1, nf2, nf3)
    """
    c_flat, n_trans, is_batched = _prepare_batched_c(c)

    # Scale coordinates
    x_scaled = fold_rescale(x, nf1)
    y_scaled = fold_rescale(y, nf2)
    z_scaled = fold_rescale(z, nf3)

    # Get kernel weights and indices
    (indices_x, indices_y, indices_z, weights_x, weights_y, weights_z) = compute_kernel_weights_3d(
        x_scaled, y_scaled, z_scaled, nf1, nf2, nf3, kernel_params
    )

    # Compute 3D linear indices
    # indices_3d[j, dz, dy, dx] = indices_z[j,dz]*nf1*nf2 + indices_y[j,dy]*nf1 + indices_x[j,dx]
    indices_3d = (
        indices_z[:, :, None, None] * (nf1 * nf2) + indices_y[:, None, :, None] * nf1 + indices_x[:, None, None, :]
    )  # (M, nspread, nspread, nspread)

    # Compute 3D weights as outer product
    weights_3d = (
        weights_z[:, :, None, None] * weights_y[:, None, :, None] * weights_x[:, None, None, :]
    )  # (M, nspread, nspread, nspread)

    # Weighted contributions
    weighted_c = c_flat[:, :, None, None, None] * weights_3d[None, :, :, :, :]

    # Flatten for segment_sum
    indices_flat = indices_3d.ravel()
    weighted_c_flat = weighted_c.reshape(n_trans, -1)

    # Use segment_sum for efficient accumulation (faster than add.at)
    def segment_sum_for_one_transform(wc_t):
        return jax.ops.segment_sum(wc_t, indices_flat, num_segments=nf1 * nf2 * nf3)

    fw_flat = jax.vmap(segment_sum_for_one_transform)(weighted_c_flat)
    fw = fw_flat.reshape(n_trans, nf3, nf2, nf1)

    if not is_batched:
        fw = fw[0]

    return fw


def interp_3d_impl(
    x: jax.Array,
    y: jax.Array,
    z: jax.Array,
    fw: jax.Array,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    3D interpolation implementation: gather grid values at nonuniform points.

    Args:
        x, y, z: Nonuniform coordinates in [-pi, pi), shape (M,) each
        fw: Fine grid values, shape (nf1, nf2, nf3) or (n_trans, nf1, nf2, nf3)
        kernel_params: Kernel parameters

    Returns:
        c: Interpolated values, shape (M,) or (n_trans, M)
    """
    fw_flat, nf1, nf2, nf3, _, is_batched = _prepare_batched_grid_3d(fw)
    M = x.shape[0]
    nspread = kernel_params.nspread

    # Scale coordinates
    x_scaled = fold_rescale(x, nf1)
    y_scaled = fold_rescale(y, nf2)
    z_scaled = fold_rescale(z, nf3)

    # Get kernel weights and indices
    (indices_x, indices_y, indices_z, weights_x, weights_y, weights_z) = compute_kernel_weights_3d(
        x_scaled, y_scaled, z_scaled, nf1, nf2, nf3, kernel_params
    )

    # Compute 3D indices and weights
    indices_3d = (
        indices_z[:, :, None, None] * (nf1 * nf2) + indices_y[:, None, :, None] * nf1 + indices_x[:, None, None, :]
    )
    weights_3d = weights_z[:, :, None, None] * weights_y[:, None, :, None] * weights_x[:, None, None, :]

    # Gather values
    indices_flat = indices_3d.ravel()
    fw_gathered = fw_flat[:, indices_flat].reshape(-1, M, nspread, nspread, nspread)

    # Apply weights and sum
    c = jnp.sum(fw_gathered * weights_3d[None, :, :, :, :], axis=(-3, -2, -1))

    if not is_batched:
        c = c[0]

    return c


# ============================================================================
# Pallas GPU dispatch helpers
# ============================================================================


def _spread_1d_dispatch(x, c, nf, kernel_params):
    """Dispatch 1D spreading to Pallas GPU or pure JAX."""
    if _use_pallas(x, c):
        if c.ndim == 1:
            return spread_1d_pallas(x, c, nf, kernel_params)
        return jax.vmap(lambda ci: spread_1d_pallas(x, ci, nf, kernel_params))(c)
    return spread_1d_impl(x, c, nf, kernel_params)


def _spread_2d_dispatch(x, y, c, nf1, nf2, kernel_params):
    """Dispatch 2D spreading to Pallas GPU or pure JAX."""
    if _use_pallas(x, c):
        if c.ndim == 1:
            return spread_2d_pallas(x, y, c, nf1, nf2, kernel_params)
        return jax.vmap(lambda ci: spread_2d_pallas(x, y, ci, nf1, nf2, kernel_params))(c)
    return spread_2d_impl(x, y, c, nf1, nf2, kernel_params)


# Interpolation (Type 2 gather) is left to pure JAX: XLA already fuses the
# gather+reduce optimally. Benchmarked on H100 the Pallas interp kernels were
# at best parity (1D/2D) and 2-4x slower in 3D, so they are not used.


def _interp_1d_dispatch(x, fw, kernel_params):
    return interp_1d_impl(x, fw, kernel_params)


def _interp_2d_dispatch(x, y, fw, kernel_params):
    return interp_2d_impl(x, y, fw, kernel_params)


def _spread_3d_dispatch(x, y, z, c, nf1, nf2, nf3, kernel_params):
    """Dispatch 3D spreading to Pallas GPU or pure JAX."""
    if _use_pallas(x, c):
        if c.ndim == 1:
            return spread_3d_pallas(x, y, z, c, nf1, nf2, nf3, kernel_params)
        return jax.vmap(lambda ci: spread_3d_pallas(x, y, z, ci, nf1, nf2, nf3, kernel_params))(c)
    return spread_3d_impl(x, y, z, c, nf1, nf2, nf3, kernel_params)


def _interp_3d_dispatch(x, y, z, fw, kernel_params):
    return interp_3d_impl(x, y, z, fw, kernel_params)


# ============================================================================
# Helpers: closure extraction and kernel reconstruction for custom VJP
# ============================================================================
#
# kernel_params is intentionally NOT in nondiff_argnums.  Placing it there
# causes a tracer-leak when phi closes over a JAX-traced value (e.g. a
# learnable kernel parameter): the bwd function is invoked outside the scope
# of the original forward trace, so any stale tracer captured by phi is
# invalid.
#
# Instead, jax.closure_convert extracts the closed-over JAX arrays
# (phi_args / dphi_args) and these become ordinary differentiable residuals.
# The static parts (phi_fn, dphi_fn, nspread, nf, …) go in nondiff_argnums.


def _rebuild_kernel(nspread: int, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args) -> Kernel:
    """Reconstruct a Kernel from closure-converted parts with live phi_args.

    When phi_args is empty (eager / non-traced call), phi_fn from closure_convert
    is shape-locked to the example shape used during conversion and will fail for
    other shapes.  Fall back to phi_orig which works for any shape.
    """
    phi = (lambda z: phi_fn(z, *phi_args)) if phi_args else phi_orig
    if dphi_fn is not None:
        phi_and_dphi = (lambda z: dphi_fn(z, *dphi_args)) if dphi_args else dphi_orig
    else:
        phi_and_dphi = None
    return Kernel(nspread=nspread, phi=phi, phi_and_dphi=phi_and_dphi)


def _extract_phi_closures(kernel: Kernel, dtype) -> tuple:
    """Extract closed-over JAX arrays from kernel functions via jax.closure_convert.

    Returns (phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args).
    phi_orig / dphi_orig are the originals (used as shape-agnostic fallback when
    phi_args is empty, i.e. no JAX-array closures are present).
    """
    z = jnp.zeros((1,), dtype=dtype)
    phi_fn, phi_args = jax.closure_convert(kernel.phi, z)
    if kernel.phi_and_dphi is not None:
        dphi_fn, dphi_args = jax.closure_convert(kernel.phi_and_dphi, z)
    else:
        dphi_fn, dphi_args = None, ()
    return phi_fn, dphi_fn, kernel.phi, kernel.phi_and_dphi, phi_args, dphi_args


# ============================================================================
# Public API with Custom VJP
# ============================================================================

# ── 1-D spread ──────────────────────────────────────────────────────────────


@partial(jax.custom_vjp, nondiff_argnums=(2, 3, 4, 5, 6, 7))
def _spread_1d_vjp(x, c, nf, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args):
    return _spread_1d_dispatch(
        x, c, nf, _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    )


def _spread_1d_vjp_fwd(x, c, nf, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args):
    kernel = _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    result = _spread_1d_dispatch(x, c, nf, kernel)
    return result, (x, c, phi_args, dphi_args)


def _spread_1d_vjp_bwd(nf, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, res, g):
    x, c, phi_args, dphi_args = res
    kernel = _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    dc = interp_1d_impl(x, g, kernel)
    dx = _spread_1d_grad_x(x, c, g, nf, kernel)
    _, fw_vjp = jax.vjp(
        lambda pa, dpa: spread_1d_impl(
            x, c, nf, _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, pa, dpa)
        ),
        phi_args,
        dphi_args,
    )
    d_phi_args, d_dphi_args = fw_vjp(g)
    return dx, dc, d_phi_args, d_dphi_args


_spread_1d_vjp.defvjp(_spread_1d_vjp_fwd, _spread_1d_vjp_bwd)


def spread_1d(
    x: jax.Array,
    c: jax.Array,
    nf: int,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    Spread nonuniform point values to a 1D uniform grid.

    Type 1 NUFFT spreading operation:
        fw[k] = sum_j c[j] * phi((k - x[j] * nf / (2*pi)) / w)

    Args:
        x: Nonuniform point coordinates in [-pi, pi), shape (M,)
        c: Complex strengths at nonuniform points, shape (M,) or (n_trans, M)
        nf: Fine grid size
        kernel_params: Kernel parameters or custom Kernel

    Returns:
        fw: Fine grid values, shape (nf,) or (n_trans, nf)
    """
    kernel = _as_kernel(kernel_params)
    phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args = _extract_phi_closures(kernel, x.dtype)
    return _spread_1d_vjp(x, c, nf, kernel.nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)


def _spread_1d_grad_x(
    x: jax.Array,
    c: jax.Array,
    g: jax.Array,
    nf: int,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    Compute gradient of spread_1d with respect to x.

    The gradient involves the kernel derivative:
        dx[j] = sum_k g[k] * c[j] * dphi/dx(k - x[j] * nf / (2*pi))
    """
    c_flat, _, _ = _prepare_batched_c(c)
    g_flat, _, _, _ = _prepare_batched_grid_1d(g)

    # Scale coordinates
    x_scaled = fold_rescale(x, nf)

    # Get indices, weights, and weight derivatives
    indices, weights, dweights = compute_kernel_weights_derivative_1d(x_scaled, nf, kernel_params)

    # Gather g values at kernel support points
    # g_gathered[t, j, k] = g[t, indices[j, k]]
    g_gathered = g_flat[:, indices]  # (n_trans, M, nspread)

    # Compute gradient: sum over transforms and kernel support
    # dx[j] = sum_t sum_k real(conj(c[t,j]) * g[t, indices[j,k]] * dweights[j,k])
    # Note: for complex c, gradient is w.r.t. real-valued x
    # The contribution is: Re(conj(c) * g * dphi)
    contrib = g_gathered * dweights[None, :, :]  # (n_trans, M, nspread)
    # Sum over kernel support
    contrib_sum = jnp.sum(contrib, axis=-1)  # (n_trans, M)
    # Multiply by c and take real part (since x is real)
    dx_per_trans = jnp.real(jnp.conj(c_flat) * contrib_sum)  # (n_trans, M)
    # Sum over transforms
    dx = jnp.sum(dx_per_trans, axis=0)  # (M,)

    return dx


# ── 1-D interp ──────────────────────────────────────────────────────────────


@partial(jax.custom_vjp, nondiff_argnums=(2, 3, 4, 5, 6, 7))
def _interp_1d_vjp(x, fw, nf, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args):
    return _interp_1d_dispatch(
        x, fw, _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    )


def _interp_1d_vjp_fwd(x, fw, nf, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args):
    kernel = _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    result = _interp_1d_dispatch(x, fw, kernel)
    return result, (x, fw, phi_args, dphi_args)


def _interp_1d_vjp_bwd(nf, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, res, g):
    x, fw, phi_args, dphi_args = res
    kernel = _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    dfw = spread_1d_impl(x, g, nf, kernel)
    dx = _interp_1d_grad_x(x, fw, g, nf, kernel)
    _, interp_vjp = jax.vjp(
        lambda pa, dpa: interp_1d_impl(x, fw, _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, pa, dpa)),
        phi_args,
        dphi_args,
    )
    d_phi_args, d_dphi_args = interp_vjp(g)
    return dx, dfw, d_phi_args, d_dphi_args


_interp_1d_vjp.defvjp(_interp_1d_vjp_fwd, _interp_1d_vjp_bwd)


def interp_1d(
    x: jax.Array,
    fw: jax.Array,
    nf: int,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    Interpolate from 1D uniform grid to nonuniform points.

    Type 2 NUFFT interpolation operation:
        c[j] = sum_k fw[k] * phi((k - x[j] * nf / (2*pi)) / w)

    Args:
        x: Nonuniform point coordinates in [-pi, pi), shape (M,)
        fw: Fine grid values, shape (nf,) or (n_trans, nf)
        nf: Fine grid size (must match fw)
        kernel_params: Kernel parameters

    Returns:
        c: Interpolated values, shape (M,) or (n_trans, M)
    """
    kernel = _as_kernel(kernel_params)
    phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args = _extract_phi_closures(kernel, x.dtype)
    return _interp_1d_vjp(x, fw, nf, kernel.nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)


def _interp_1d_grad_x(
    x: jax.Array,
    fw: jax.Array,
    g: jax.Array,
    nf: int,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    Compute gradient of interp_1d with respect to x.

    The gradient involves the kernel derivative:
        dx[j] = sum_k fw[k] * dphi/dx(k - x[j] * nf / (2*pi)) * g[j]
    """
    fw_flat, _, _, _ = _prepare_batched_grid_1d(fw)
    g_flat, _, _ = _prepare_batched_c(g)

    # Scale coordinates
    x_scaled = fold_rescale(x, nf)

    # Get indices, weights, and weight derivatives
    indices, weights, dweights = compute_kernel_weights_derivative_1d(x_scaled, nf, kernel_params)

    # Gather fw values at kernel support points
    fw_gathered = fw_flat[:, indices]  # (n_trans, M, nspread)

    # Compute derivative of c w.r.t. x
    # dc/dx[j] = sum_k fw[k] * dweights[j, k]
    dc_dx = jnp.sum(fw_gathered * dweights[None, :, :], axis=-1)  # (n_trans, M)

    # Chain rule with g
    dx_per_trans = jnp.real(jnp.conj(g_flat) * dc_dx)  # (n_trans, M)
    dx = jnp.sum(dx_per_trans, axis=0)  # (M,)

    return dx


# ============================================================================
# 2D Public API with Custom VJP
# ============================================================================

# ── 2-D spread ──────────────────────────────────────────────────────────────


@partial(jax.custom_vjp, nondiff_argnums=(5, 6, 7, 8, 9, 10, 11))
def _spread_2d_vjp(x, y, c, phi_args, dphi_args, nf1, nf2, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig):
    return _spread_2d_dispatch(
        x, y, c, nf1, nf2, _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    )


def _spread_2d_vjp_fwd(x, y, c, phi_args, dphi_args, nf1, nf2, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig):
    kernel = _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    result = _spread_2d_dispatch(x, y, c, nf1, nf2, kernel)
    return result, (x, y, c, phi_args, dphi_args)


def _spread_2d_vjp_bwd(nf1, nf2, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, res, g):
    x, y, c, phi_args, dphi_args = res
    kernel = _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    dc = interp_2d_impl(x, y, g, kernel)
    dx, dy = _spread_2d_grad_xy(x, y, c, g, nf1, nf2, kernel)
    _, fw_vjp = jax.vjp(
        lambda pa, dpa: spread_2d_impl(
            x, y, c, nf1, nf2, _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, pa, dpa)
        ),
        phi_args,
        dphi_args,
    )
    d_phi_args, d_dphi_args = fw_vjp(g)
    return dx, dy, dc, d_phi_args, d_dphi_args


_spread_2d_vjp.defvjp(_spread_2d_vjp_fwd, _spread_2d_vjp_bwd)


def spread_2d(
    x: jax.Array,
    y: jax.Array,
    c: jax.Array,
    nf1: int,
    nf2: int,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    Spread nonuniform point values to a 2D uniform grid.

    Args:
        x: Nonuniform x coordinates in [-pi, pi), shape (M,)
        y: Nonuniform y coordinates in [-pi, pi), shape (M,)
        c: Complex strengths, shape (M,) or (n_trans, M)
        nf1, nf2: Fine grid sizes
        kernel_params: Kernel parameters

    Returns:
        fw: Fine grid values, shape (nf2, nf1) or (n_trans, nf2, nf1)
    """
    kernel = _as_kernel(kernel_params)
    phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args = _extract_phi_closures(kernel, x.dtype)
    return _spread_2d_vjp(x, y, c, phi_args, dphi_args, nf1, nf2, kernel.nspread, phi_fn, dphi_fn, phi_orig, dphi_orig)


def _spread_2d_grad_xy(x, y, c, g, nf1, nf2, kernel_params):
    """Compute gradients of spread_2d w.r.t. x and y."""
    c_flat, _, _ = _prepare_batched_c(c)
    g_flat, _, _, _, _ = _prepare_batched_grid_2d(g)
    M = x.shape[0]
    kernel = _as_kernel(kernel_params)
    nspread = kernel.nspread

    # Scale coordinates
    x_scaled = fold_rescale(x, nf1)
    y_scaled = fold_rescale(y, nf2)

    # Per-dimension kernel weights and derivatives (shared 1D helper)
    indices_x, weights_x, dweights_x = compute_kernel_weights_derivative_1d(x_scaled, nf1, kernel)
    indices_y, weights_y, dweights_y = compute_kernel_weights_derivative_1d(y_scaled, nf2, kernel)

    # 2D indices
    indices_2d = indices_y[:, :, None] * nf1 + indices_x[:, None, :]
    indices_flat = indices_2d.ravel()

    # Gather g values
    g_gathered = g_flat[:, indices_flat].reshape(-1, M, nspread, nspread)

    # For dx: use dweights_x, weights_y
    weights_2d_dx = weights_y[:, :, None] * dweights_x[:, None, :]
    contrib_dx = jnp.sum(g_gathered * weights_2d_dx[None, :, :, :], axis=(-2, -1))
    dx_per_trans = jnp.real(jnp.conj(c_flat) * contrib_dx)
    dx = jnp.sum(dx_per_trans, axis=0)

    # For dy: use weights_x, dweights_y
    weights_2d_dy = dweights_y[:, :, None] * weights_x[:, None, :]
    contrib_dy = jnp.sum(g_gathered * weights_2d_dy[None, :, :, :], axis=(-2, -1))
    dy_per_trans = jnp.real(jnp.conj(c_flat) * contrib_dy)
    dy = jnp.sum(dy_per_trans, axis=0)

    return dx, dy


# ── 2-D interp ──────────────────────────────────────────────────────────────


@partial(jax.custom_vjp, nondiff_argnums=(5, 6, 7, 8, 9, 10, 11))
def _interp_2d_vjp(x, y, fw, phi_args, dphi_args, nf1, nf2, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig):
    return _interp_2d_dispatch(
        x, y, fw, _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    )


def _interp_2d_vjp_fwd(x, y, fw, phi_args, dphi_args, nf1, nf2, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig):
    kernel = _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    result = _interp_2d_dispatch(x, y, fw, kernel)
    return result, (x, y, fw, phi_args, dphi_args)


def _interp_2d_vjp_bwd(nf1, nf2, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, res, g):
    x, y, fw, phi_args, dphi_args = res
    kernel = _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    dfw = spread_2d_impl(x, y, g, nf1, nf2, kernel)
    dx, dy = _interp_2d_grad_xy(x, y, fw, g, nf1, nf2, kernel)
    _, interp_vjp = jax.vjp(
        lambda pa, dpa: interp_2d_impl(
            x, y, fw, _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, pa, dpa)
        ),
        phi_args,
        dphi_args,
    )
    d_phi_args, d_dphi_args = interp_vjp(g)
    return dx, dy, dfw, d_phi_args, d_dphi_args


_interp_2d_vjp.defvjp(_interp_2d_vjp_fwd, _interp_2d_vjp_bwd)


def interp_2d(
    x: jax.Array,
    y: jax.Array,
    fw: jax.Array,
    nf1: int,
    nf2: int,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    Interpolate from 2D uniform grid to nonuniform points.

    Args:
        x: Nonuniform x coordinates in [-pi, pi), shape (M,)
        y: Nonuniform y coordinates in [-pi, pi), shape (M,)
        fw: Fine grid values, shape (nf2, nf1) or (n_trans, nf2, nf1)
        nf1, nf2: Fine grid sizes
        kernel_params: Kernel parameters

    Returns:
        c: Interpolated values, shape (M,) or (n_trans, M)
    """
    kernel = _as_kernel(kernel_params)
    phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args = _extract_phi_closures(kernel, x.dtype)
    return _interp_2d_vjp(
        x, y, fw, phi_args, dphi_args, nf1, nf2, kernel.nspread, phi_fn, dphi_fn, phi_orig, dphi_orig
    )


def _interp_2d_grad_xy(x, y, fw, g, nf1, nf2, kernel_params):
    """Compute gradients of interp_2d w.r.t. x and y."""
    fw_flat, _, _, _, _ = _prepare_batched_grid_2d(fw)
    g_flat, _, _ = _prepare_batched_c(g)
    M = x.shape[0]
    kernel = _as_kernel(kernel_params)
    nspread = kernel.nspread

    x_scaled = fold_rescale(x, nf1)
    y_scaled = fold_rescale(y, nf2)

    # Per-dimension kernel weights and derivatives (shared 1D helper)
    indices_x, weights_x, dweights_x = compute_kernel_weights_derivative_1d(x_scaled, nf1, kernel)
    indices_y, weights_y, dweights_y = compute_kernel_weights_derivative_1d(y_scaled, nf2, kernel)

    # 2D indices
    indices_2d = indices_y[:, :, None] * nf1 + indices_x[:, None, :]
    indices_flat = indices_2d.ravel()

    # Gather fw values
    fw_gathered = fw_flat[:, indices_flat].reshape(-1, M, nspread, nspread)

    # For dx
    weights_2d_dx = weights_y[:, :, None] * dweights_x[:, None, :]
    dc_dx = jnp.sum(fw_gathered * weights_2d_dx[None, :, :, :], axis=(-2, -1))
    dx_per_trans = jnp.real(jnp.conj(g_flat) * dc_dx)
    dx = jnp.sum(dx_per_trans, axis=0)

    # For dy
    weights_2d_dy = dweights_y[:, :, None] * weights_x[:, None, :]
    dc_dy = jnp.sum(fw_gathered * weights_2d_dy[None, :, :, :], axis=(-2, -1))
    dy_per_trans = jnp.real(jnp.conj(g_flat) * dc_dy)
    dy = jnp.sum(dy_per_trans, axis=0)

    return dx, dy


# ============================================================================
# 3D Public API with Custom VJP
# ============================================================================

# ── 3-D spread ──────────────────────────────────────────────────────────────


@partial(jax.custom_vjp, nondiff_argnums=(6, 7, 8, 9, 10, 11, 12, 13))
def _spread_3d_vjp(x, y, z, c, phi_args, dphi_args, nf1, nf2, nf3, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig):
    return _spread_3d_dispatch(
        x, y, z, c, nf1, nf2, nf3, _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    )


def _spread_3d_vjp_fwd(x, y, z, c, phi_args, dphi_args, nf1, nf2, nf3, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig):
    kernel = _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    result = _spread_3d_dispatch(x, y, z, c, nf1, nf2, nf3, kernel)
    return result, (x, y, z, c, phi_args, dphi_args)


def _spread_3d_vjp_bwd(nf1, nf2, nf3, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, res, g):
    x, y, z, c, phi_args, dphi_args = res
    kernel = _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    dc = interp_3d_impl(x, y, z, g, kernel)
    dx, dy, dz = _spread_3d_grad_xyz(x, y, z, c, g, nf1, nf2, nf3, kernel)
    _, fw_vjp = jax.vjp(
        lambda pa, dpa: spread_3d_impl(
            x, y, z, c, nf1, nf2, nf3, _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, pa, dpa)
        ),
        phi_args,
        dphi_args,
    )
    d_phi_args, d_dphi_args = fw_vjp(g)
    return dx, dy, dz, dc, d_phi_args, d_dphi_args


_spread_3d_vjp.defvjp(_spread_3d_vjp_fwd, _spread_3d_vjp_bwd)


def spread_3d(
    x: jax.Array,
    y: jax.Array,
    z: jax.Array,
    c: jax.Array,
    nf1: int,
    nf2: int,
    nf3: int,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    Spread nonuniform point values to a 3D uniform grid.

    Args:
        x, y, z: Nonuniform coordinates in [-pi, pi), shape (M,) each
        c: Complex strengths, shape (M,) or (n_trans, M)
        nf1, nf2, nf3: Fine grid sizes
        kernel_params: Kernel parameters

    Returns:
        fw: Fine grid values, shape (nf3, nf2, nf1) or (n_trans, nf3, nf2, nf1)
    """
    kernel = _as_kernel(kernel_params)
    phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args = _extract_phi_closures(kernel, x.dtype)
    return _spread_3d_vjp(
        x, y, z, c, phi_args, dphi_args, nf1, nf2, nf3, kernel.nspread, phi_fn, dphi_fn, phi_orig, dphi_orig
    )


def _spread_3d_grad_xyz(x, y, z, c, g, nf1, nf2, nf3, kernel_params):
    """Compute gradients of spread_3d w.r.t. x, y, z."""
    c_flat, _, _ = _prepare_batched_c(c)
    g_flat, _, _, _, _, _ = _prepare_batched_grid_3d(g)
    M = x.shape[0]
    kernel = _as_kernel(kernel_params)
    nspread = kernel.nspread

    x_scaled = fold_rescale(x, nf1)
    y_scaled = fold_rescale(y, nf2)
    z_scaled = fold_rescale(z, nf3)

    # Per-dimension kernel weights and derivatives (shared 1D helper)
    indices_x, weights_x, dweights_x = compute_kernel_weights_derivative_1d(x_scaled, nf1, kernel)
    indices_y, weights_y, dweights_y = compute_kernel_weights_derivative_1d(y_scaled, nf2, kernel)
    indices_z, weights_z, dweights_z = compute_kernel_weights_derivative_1d(z_scaled, nf3, kernel)

    # 3D indices
    indices_3d = (
        indices_z[:, :, None, None] * (nf1 * nf2) + indices_y[:, None, :, None] * nf1 + indices_x[:, None, None, :]
    )
    indices_flat = indices_3d.ravel()

    # Gather g values
    g_gathered = g_flat[:, indices_flat].reshape(-1, M, nspread, nspread, nspread)

    # For dx
    weights_3d_dx = weights_z[:, :, None, None] * weights_y[:, None, :, None] * dweights_x[:, None, None, :]
    contrib_dx = jnp.sum(g_gathered * weights_3d_dx[None, :, :, :, :], axis=(-3, -2, -1))
    dx_per_trans = jnp.real(jnp.conj(c_flat) * contrib_dx)
    dx = jnp.sum(dx_per_trans, axis=0)

    # For dy
    weights_3d_dy = weights_z[:, :, None, None] * dweights_y[:, None, :, None] * weights_x[:, None, None, :]
    contrib_dy = jnp.sum(g_gathered * weights_3d_dy[None, :, :, :, :], axis=(-3, -2, -1))
    dy_per_trans = jnp.real(jnp.conj(c_flat) * contrib_dy)
    dy = jnp.sum(dy_per_trans, axis=0)

    # For dz
    weights_3d_dz = dweights_z[:, :, None, None] * weights_y[:, None, :, None] * weights_x[:, None, None, :]
    contrib_dz = jnp.sum(g_gathered * weights_3d_dz[None, :, :, :, :], axis=(-3, -2, -1))
    dz_per_trans = jnp.real(jnp.conj(c_flat) * contrib_dz)
    dz = jnp.sum(dz_per_trans, axis=0)

    return dx, dy, dz


# ── 3-D interp ──────────────────────────────────────────────────────────────


@partial(jax.custom_vjp, nondiff_argnums=(6, 7, 8, 9, 10, 11, 12, 13))
def _interp_3d_vjp(x, y, z, fw, phi_args, dphi_args, nf1, nf2, nf3, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig):
    return _interp_3d_dispatch(
        x, y, z, fw, _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    )


def _interp_3d_vjp_fwd(x, y, z, fw, phi_args, dphi_args, nf1, nf2, nf3, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig):
    kernel = _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    result = _interp_3d_dispatch(x, y, z, fw, kernel)
    return result, (x, y, z, fw, phi_args, dphi_args)


def _interp_3d_vjp_bwd(nf1, nf2, nf3, nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, res, g):
    x, y, z, fw, phi_args, dphi_args = res
    kernel = _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args)
    dfw = spread_3d_impl(x, y, z, g, nf1, nf2, nf3, kernel)
    dx, dy, dz = _interp_3d_grad_xyz(x, y, z, fw, g, nf1, nf2, nf3, kernel)
    _, interp_vjp = jax.vjp(
        lambda pa, dpa: interp_3d_impl(
            x, y, z, fw, _rebuild_kernel(nspread, phi_fn, dphi_fn, phi_orig, dphi_orig, pa, dpa)
        ),
        phi_args,
        dphi_args,
    )
    d_phi_args, d_dphi_args = interp_vjp(g)
    return dx, dy, dz, dfw, d_phi_args, d_dphi_args


_interp_3d_vjp.defvjp(_interp_3d_vjp_fwd, _interp_3d_vjp_bwd)


def interp_3d(
    x: jax.Array,
    y: jax.Array,
    z: jax.Array,
    fw: jax.Array,
    nf1: int,
    nf2: int,
    nf3: int,
    kernel_params: "Kernel | KernelParams",
) -> jax.Array:
    """
    Interpolate from 3D uniform grid to nonuniform points.

    Args:
        x, y, z: Nonuniform coordinates in [-pi, pi), shape (M,) each
        fw: Fine grid values, shape (nf3, nf2, nf1) or (n_trans, nf3, nf2, nf1)
        nf1, nf2, nf3: Fine grid sizes
        kernel_params: Kernel parameters

    Returns:
        c: Interpolated values, shape (M,) or (n_trans, M)
    """
    kernel = _as_kernel(kernel_params)
    phi_fn, dphi_fn, phi_orig, dphi_orig, phi_args, dphi_args = _extract_phi_closures(kernel, x.dtype)
    return _interp_3d_vjp(
        x, y, z, fw, phi_args, dphi_args, nf1, nf2, nf3, kernel.nspread, phi_fn, dphi_fn, phi_orig, dphi_orig
    )


def _interp_3d_grad_xyz(x, y, z, fw, g, nf1, nf2, nf3, kernel_params):
    """Compute gradients of interp_3d w.r.t. x, y, z."""
    fw_flat, _, _, _, _, _ = _prepare_batched_grid_3d(fw)
    g_flat, _, _ = _prepare_batched_c(g)
    M = x.shape[0]
    kernel = _as_kernel(kernel_params)
    nspread = kernel.nspread

    x_scaled = fold_rescale(x, nf1)
    y_scaled = fold_rescale(y, nf2)
    z_scaled = fold_rescale(z, nf3)

    # Per-dimension kernel weights and derivatives (shared 1D helper)
    indices_x, weights_x, dweights_x = compute_kernel_weights_derivative_1d(x_scaled, nf1, kernel)
    indices_y, weights_y, dweights_y = compute_kernel_weights_derivative_1d(y_scaled, nf2, kernel)
    indices_z, weights_z, dweights_z = compute_kernel_weights_derivative_1d(z_scaled, nf3, kernel)

    # 3D indices
    indices_3d = (
        indices_z[:, :, None, None] * (nf1 * nf2) + indices_y[:, None, :, None] * nf1 + indices_x[:, None, None, :]
    )
    indices_flat = indices_3d.ravel()

    # Gather fw values
    fw_gathered = fw_flat[:, indices_flat].reshape(-1, M, nspread, nspread, nspread)

    # For dx
    weights_3d_dx = weights_z[:, :, None, None] * weights_y[:, None, :, None] * dweights_x[:, None, None, :]
    dc_dx = jnp.sum(fw_gathered * weights_3d_dx[None, :, :, :, :], axis=(-3, -2, -1))
    dx_per_trans = jnp.real(jnp.conj(g_flat) * dc_dx)
    dx = jnp.sum(dx_per_trans, axis=0)

    # For dy
    weights_3d_dy = weights_z[:, :, None, None] * dweights_y[:, None, :, None] * weights_x[:, None, None, :]
    dc_dy = jnp.sum(fw_gathered * weights_3d_dy[None, :, :, :, :], axis=(-3, -2, -1))
    dy_per_trans = jnp.real(jnp.conj(g_flat) * dc_dy)
    dy = jnp.sum(dy_per_trans, axis=0)

    # For dz
    weights_3d_dz = dweights_z[:, :, None, None] * weights_y[:, None, :, None] * weights_x[:, None, None, :]
    dc_dz = jnp.sum(fw_gathered * weights_3d_dz[None, :, :, :, :], axis=(-3, -2, -1))
    dz_per_trans = jnp.real(jnp.conj(g_flat) * dc_dz)
    dz = jnp.sum(dz_per_trans, axis=0)

    return dx, dy, dz
