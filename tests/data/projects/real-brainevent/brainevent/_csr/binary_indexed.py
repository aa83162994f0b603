# Copyright 2025 BrainX Ecosystem Limited. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================

"""Fused event-driven CSR matrix-vector / matrix-matrix products with a weight gather index.

``binary_csrmv_indexed`` (mat-vec) and ``binary_csrmm_indexed`` (mat-mat)
perform the same event-driven scatter as
:func:`brainevent._csr.binary.binary_csrmv` /
:func:`brainevent._csr.binary.binary_csrmm`, except that heterogeneous weights
are read through a permutation ``perm``: structural slot ``j`` uses
``weights[perm[j]]``.  This lets an *unfavorable* direction (``CSR @ event`` or
``event @ CSC``) reuse the event-driven column/row scatter over a transposed
structure while keeping ``weights`` in its canonical order -- the gather is
*fused* into the kernel so only active rows/columns are touched (no full
``weights[perm]`` materialization on the forward path).
"""

from pathlib import Path
from typing import Optional

import brainunit as u
import jax
import jax.numpy as jnp
import numpy as np
from jax.interpreters import ad

from brainevent._misc import (
    _check_csr_cuda_structure_dtypes,
    _check_csr_structure_dtypes,
    _csr_to_coo,
    namescope,
)
from brainevent._op import numba_kernel, XLACustomKernel, general_batching_rule, load_cuda_file
from .hybrid_config import (
    get_hybrid_config,
    compile_flags_for_config,
    module_suffix_for_config,
)
from brainevent._sddmm import sddmm_coo_indices
from brainevent._typing import Data, Indptr, Index, MatrixShape
from brainevent.config import get_numba_parallel
from .binary import (
    _workspace_from_task_operands,
    _workspace_task_operands,
)
from .float import csrmv, csrmm
from brainevent._op.util import dtype_suffix

__all__ = [
    'binary_csrmv_indexed',
    'binary_csrmv_indexed_p',
    'binary_csrmm_indexed',
    'binary_csrmm_indexed_p',
]


@namescope(static_argnames=("shape", "transpose"))
def binary_csrmv_indexed(
    data: Data,
    indices: Index,
    indptr: Indptr,
    perm: Index,
    v: Data,
    *,
    shape: MatrixShape,
    workspace,
    transpose: bool = False,
    backend: Optional[str] = None,
) -> Data:
    """Event-driven CSR matrix-vector product with a fused weight gather index.

    Equivalent to ``binary_csrmv(data[perm], indices, indptr, v, ...)`` for
    heterogeneous weights, but the gather ``data[perm]`` is fused into the
    scatter kernel so that only weights of *active* rows/columns are read.
    For homogeneous weights (``data.size == 1``) ``perm`` is ignored.

    Parameters
    ----------
    data : jax.Array, numpy.ndarray, or brainunit.Quantity
        Non-zero weight values in their *canonical* order.  Shape ``(nse,)``
        for heterogeneous weights or ``(1,)`` for a homogeneous weight.
    indices : jax.Array or numpy.ndarray
        Secondary-axis indices of the (transposed) structure being traversed.
        Shape ``(nse,)`` with integer dtype.
    indptr : jax.Array or numpy.ndarray
        Pointer array of the traversed structure.  Shape ``(shape[0] + 1,)``.
    perm : jax.Array or numpy.ndarray
        Permutation mapping structural slot ``j`` to the canonical weight
        index ``perm[j]``.  Shape ``(nse,)`` with the same integer dtype as
        ``indices``.
    v : jax.Array, numpy.ndarray, or brainunit.Quantity
        Dense event vector.  Shape ``(shape[0],)`` when ``transpose=True`` or
        ``(shape[1],)`` when ``transpose=False``.  Boolean or floating dtype.
    shape : tuple of int
        Logical shape ``(m, k)`` of the traversed structure.
    workspace
        Explicit binary task workspace with ``task_capacity``,
        ``task_begin``, ``task_end``, and ``status`` attributes.
    transpose : bool, optional
        If ``True``, compute the transposed (scatter) product.  Default
        ``False``.
    backend : str or None, optional
        Compute backend.  Default ``None`` (auto-select).

    Returns
    -------
    y : jax.Array or brainunit.Quantity
        Result vector, preserving units of ``data`` and ``v``.

    See Also
    --------
    brainevent._csr.binary.binary_csrmv : The non-indexed event-driven product.
    """
    data, unitd = u.split_mantissa_unit(data)
    v, unitv = u.split_mantissa_unit(v)
    res = binary_csrmv_indexed_p_call(
        data,
        indices,
        indptr,
        perm,
        v,
        workspace=workspace,
        shape=shape,
        transpose=transpose,
        backend=backend,
    )[0]
    return u.maybe_decimal(res * (unitd * unitv))


# --------------------------------------------------------------------------- #
# numba CPU kernel
# --------------------------------------------------------------------------- #
def _csrmv_indexed_numba_kernel(
    weight_info: jax.ShapeDtypeStruct,
    vector_info: jax.ShapeDtypeStruct,
    transpose: bool,
    **kwargs
):
    import numba
    if weight_info.size == 1:
        # Homogeneous weights ignore ``perm`` entirely.
        if transpose:
            if vector_info.dtype == jnp.bool_:
                @numba.njit(fastmath=True)
                def mv(weights, indices, indptr, perm, v, posts):
                    posts[:] = 0.
                    w = weights[0]
                    for i in range(v.shape[0]):
                        if v[i]:
                            for j in range(indptr[i], indptr[i + 1]):
                                posts[indices[j]] += w
            else:
                @numba.njit(fastmath=True)
                def mv(weights, indices, indptr, perm, v, posts):
                    posts[:] = 0.
                    w = weights[0]
                    for i in range(v.shape[0]):
                        if v[i] > 0.:
                            for j in range(indptr[i], indptr[i + 1]):
                                posts[indices[j]] += w
        else:
            if vector_info.dtype == jnp.bool_:
                @numba.njit(parallel=get_numba_parallel(), fastmath=True, nogil=True)
                def mv(weights, indices, indptr, perm, v, posts):
                    w = weights[0]
                    for i in numba.prange(indptr.shape[0] - 1):
                        r = 0.0
                        for j in range(indptr[i], indptr[i + 1]):
                            if v[indices[j]]:
                                r += w
                        posts[i] = r
            else:
                @numba.njit(parallel=get_numba_parallel(), fastmath=True, nogil=True)
                def mv(weights, indices, indptr, perm, v, posts):
                    w = weights[0]
                    for i in numba.prange(indptr.shape[0] - 1):
                        r = 0.0
                        for j in range(indptr[i], indptr[i + 1]):
                            if v[indices[j]] > 0.:
                                r += w
                        posts[i] = r
    else:
        # Heterogeneous weights read through ``perm``.
        if transpose:
            if vector_info.dtype == jnp.bool_:
                @numba.njit(fastmath=True)
                def mv(weights, indices, indptr, perm, v, posts):
                    posts[:] = 0.
                    for i in range(v.shape[0]):
                        if v[i]:
                            for j in range(indptr[i], indptr[i + 1]):
                                posts[indices[j]] += weights[perm[j]]
            else:
                @numba.njit(fastmath=True)
                def mv(weights, indices, indptr, perm, v, posts):
                    posts[:] = 0.
                    for i in range(v.shape[0]):
                        if v[i] > 0.:
                            for j in range(indptr[i], indptr[i + 1]):
                                posts[indices[j]] += weights[perm[j]]
        else:
            if vector_info.dtype == jnp.bool_:
                @numba.njit(parallel=get_numba_parallel(), fastmath=True, nogil=True)
                def mv(weights, indices, indptr, perm, v, posts):
                    for i in numba.prange(indptr.shape[0] - 1):
                        r = 0.0
                        for j in range(indptr[i], indptr[i + 1]):
                            if v[indices[j]]:
                                r += weights[perm[j]]
                        posts[i] = r
            else:
                @numba.njit(parallel=get_numba_parallel(), fastmath=True, nogil=True)
                def mv(weights, indices, indptr, perm, v, posts):
                    for i in numba.prange(indptr.shape[0] - 1):
                        r = 0.0
                        for j in range(indptr[i], indptr[i + 1]):
                            if v[indices[j]] > 0.:
                                r += weights[perm[j]]
                        posts[i] = r

    def kernel(weights, indices, indptr, perm, vector, task_begin, task_end, status):
        output = numba_kernel(mv, outs=kwargs['outs'][0])(weights, indices, indptr, perm, vector)
        math_out = output[0] if isinstance(output, (tuple, list)) else output
        return math_out, task_begin, task_end, status

    return kernel


# --------------------------------------------------------------------------- #
# pure-JAX kernel (CPU/GPU/TPU fallback)
# --------------------------------------------------------------------------- #
def _binary_csrmv_indexed_jax_kernel(
    weight_info: jax.ShapeDtypeStruct,
    vector_info: jax.ShapeDtypeStruct,
    shape: MatrixShape,
    transpose: bool,
    **kwargs,
):
    """Pure-JAX kernel for fused indexed event-driven CSR matrix-vector product."""
    m, k = shape
    is_homo = (weight_info.size == 1)
    is_bool = (vector_info.dtype == jnp.bool_)
    nse = kwargs['indices_info'].size
    out_dtype = kwargs['outs'][0].dtype

    if transpose:
        def kernel(weights, indices, indptr, perm, vector, task_begin, task_end, status):
            row_ids = jnp.repeat(
                jnp.arange(m, dtype=indptr.dtype),
                jnp.diff(indptr),
                total_repeat_length=nse,
            )
            v_row = vector[row_ids]
            events = v_row.astype(out_dtype) if is_bool else (v_row > 0.).astype(out_dtype)
            w = weights[0] if is_homo else weights[perm]
            math_out = jnp.zeros(k, dtype=out_dtype).at[indices].add(w * events)
            return math_out, task_begin, task_end, status
    else:
        def kernel(weights, indices, indptr, perm, vector, task_begin, task_end, status):
            row_ids = jnp.repeat(
                jnp.arange(m, dtype=indptr.dtype),
                jnp.diff(indptr),
                total_repeat_length=nse,
            )
            v_col = vector[indices]
            events = v_col.astype(out_dtype) if is_bool else (v_col > 0.).astype(out_dtype)
            w = weights[0] if is_homo else weights[perm]
            math_out = jnp.zeros(m, dtype=out_dtype).at[row_ids].add(w * events)
            return math_out, task_begin, task_end, status

    return kernel


# --------------------------------------------------------------------------- #
# CUDA warp kernel (homo source in binary_csrmv.cu, indexed source in
# binary_indexed_csrmv.cu)
# --------------------------------------------------------------------------- #
def _binary_csrmv_indexed_cuda_kernel(
    weight_info: jax.ShapeDtypeStruct,
    vector_info: jax.ShapeDtypeStruct,
    transpose: bool,
    **kwargs,
):
    """Build the CUDA FFI callable for the fused indexed event-driven mat-vec.

    Mirrors :func:`brainevent._csr.binary._binary_csrmv_cuda_kernel`, but for the
    heterogeneous case selects the ``..._perm_hetero`` kernels that read
    ``weights[perm[j]]`` and pass ``perm`` as an extra tensor.  Homogeneous
    weights ignore ``perm`` entirely, so they reuse the plain homogeneous kernels
    (called without ``perm``).
    """
    _check_csr_cuda_structure_dtypes(kwargs['indices_info'], kwargs['indptr_info'])
    out_info = kwargs['outs'][0]
    is_homo = (weight_info.size == 1)

    # Spike type suffix
    spk_suffix = '_bool' if vector_info.dtype == jnp.bool_ else '_float'

    # Weight dtype suffix
    wt_sfx = dtype_suffix(weight_info.dtype)

    if transpose and is_homo:
        _cfg = get_hybrid_config()
        _mod = 'csr_binary_csrmv_hybrid' + module_suffix_for_config(_cfg)
        load_cuda_file(
            Path(__file__).parent.joinpath('binary_csrmv_hybrid.cu'),
            name=_mod,
            extra_cuda_cflags=compile_flags_for_config(_cfg),
            allow_cuda_graph=False,
        )
        kernel_name = f'{_mod}.binary_csrmv_wat_hybrid_homo{wt_sfx}{spk_suffix}'

        def kernel(weights, indices, indptr, perm, vector, task_begin, task_end, status):
            return jax.ffi.ffi_call(
                kernel_name,
                kwargs['outs'],
                input_output_aliases={4: 1, 5: 2, 6: 3},
            )(
                weights,
                indices,
                indptr,
                vector,
                task_begin,
                task_end,
                status,
                task_capacity=kwargs['task_capacity'],
            )

    elif transpose:
        _cfg = get_hybrid_config()
        _mod = 'csr_binary_indexed_csrmv_hybrid' + module_suffix_for_config(_cfg)
        load_cuda_file(
            Path(__file__).parent.joinpath('binary_indexed_csrmv_hybrid.cu'),
            name=_mod,
            extra_cuda_cflags=compile_flags_for_config(_cfg),
            allow_cuda_graph=False,
        )
        kernel_name = f'{_mod}.binary_indexed_csrmv_wat_hybrid_hetero{wt_sfx}{spk_suffix}'

        def kernel(weights, indices, indptr, perm, vector, task_begin, task_end, status):
            return jax.ffi.ffi_call(
                kernel_name,
                kwargs['outs'],
                input_output_aliases={5: 1, 6: 2, 7: 3},
            )(
                weights,
                indices,
                indptr,
                perm,
                vector,
                task_begin,
                task_end,
                status,
                task_capacity=kwargs['task_capacity'],
            )

    elif is_homo:
        load_cuda_file(
            Path(__file__).parent.joinpath('binary_csrmv.cu'),
            name='csr_binary_csrmv',
        )
        kernel_name = f'csr_binary_csrmv.binary_csrmv_nt_auto_homo{wt_sfx}{spk_suffix}'

        def kernel(weights, indices, indptr, perm, vector, task_begin, task_end, status):
            math_out = jax.ffi.ffi_call(kernel_name, out_info)(weights, indices, indptr, vector)
            return math_out, task_begin, task_end, status

    else:
        load_cuda_file(
            Path(__file__).parent.joinpath('binary_indexed_csrmv.cu'),
            name='csr_binary_indexed_csrmv',
        )
        kernel_name = f'csr_binary_indexed_csrmv.binary_csrmv_nt_auto_perm_hetero{wt_sfx}{spk_suffix}'

        def kernel(weights, indices, indptr, perm, vector, task_begin, task_end, status):
            math_out = jax.ffi.ffi_call(kernel_name, out_info)(weights, indices, indptr, perm, vector)
            return math_out, task_begin, task_end, status

    return kernel


def binary_csrmv_indexed_p_call(
    weights,
    indices,
    indptr,
    perm,
    vector,
    workspace,
    *,
    shape: MatrixShape,
    transpose: bool,
    backend: Optional[str] = None,
):
    """Low-level primitive call for fused indexed event-driven CSR mat-vec.

    Validates inputs and dispatches the ``binary_csrmv_indexed_p`` custom
    kernel.  See :func:`binary_csrmv_indexed` for the math.

    Parameters
    ----------
    weights, indices, indptr, perm, vector : jax.Array
        See :func:`binary_csrmv_indexed`.  ``perm`` shares ``indices``'
        shape and integer dtype.
    workspace
        Explicit binary task workspace.  Expanded into task operands in the
        primitive ABI and returned unchanged by math-only backends.
    shape : tuple of int
        Logical shape ``(m, k)`` of the traversed structure.
    transpose : bool
        Transpose flag of the scatter.
    backend : str or None, optional
        Compute backend.

    Returns
    -------
    tuple of jax.Array
        The result vector followed by ``task_begin``, ``task_end``, and
        ``status`` task workspace outputs.
    """
    assert perm.dtype in [jnp.int32, jnp.int64, jnp.uint32, jnp.uint64], "perm must be int32 or int64."
    assert indptr.ndim == 1, "Indptr must be 1D."
    assert indices.ndim == 1, "Indices must be 1D."
    assert perm.ndim == 1, "perm must be 1D."
    assert perm.shape == indices.shape, "perm must have the same shape as indices."
    _check_csr_structure_dtypes(indices, indptr)
    if transpose:
        assert shape[0] == vector.shape[0], "Shape mismatch for transpose operation."
    else:
        assert shape[1] == vector.shape[0], "Shape mismatch for non-transpose operation."
    assert jnp.issubdtype(weights.dtype, jnp.floating), 'Weights must be a floating-point type.'

    if jnp.ndim(weights) == 0:
        weights = jnp.asarray([weights])
    if jnp.dtype(perm.dtype) != jnp.dtype(indptr.dtype):
        perm = perm.astype(indptr.dtype)

    out_info = (
        jax.ShapeDtypeStruct([shape[1]], weights.dtype)
        if transpose else
        jax.ShapeDtypeStruct([shape[0]], weights.dtype)
    )
    task_capacity, task_begin, task_end, status = _workspace_task_operands(workspace, indptr)
    task_begin_info = jax.ShapeDtypeStruct(task_begin.shape, task_begin.dtype)
    task_end_info = jax.ShapeDtypeStruct(task_end.shape, task_end.dtype)
    status_info = jax.ShapeDtypeStruct(status.shape, status.dtype)

    return binary_csrmv_indexed_p(
        weights,
        indices,
        indptr,
        perm,
        vector,
        task_begin,
        task_end,
        status,
        outs=(out_info, task_begin_info, task_end_info, status_info),
        shape=shape,
        transpose=transpose,
        backend=backend,
        indices_info=jax.ShapeDtypeStruct(indices.shape, indices.dtype),
        indptr_info=jax.ShapeDtypeStruct(indptr.shape, indptr.dtype),
        perm_info=jax.ShapeDtypeStruct(perm.shape, perm.dtype),
        weight_info=jax.ShapeDtypeStruct(weights.shape, weights.dtype),
        vector_info=jax.ShapeDtypeStruct(vector.shape, vector.dtype),
        task_begin_info=task_begin_info,
        task_end_info=task_end_info,
        status_info=status_info,
        task_capacity=task_capacity,
    )


# --------------------------------------------------------------------------- #
# autodiff rules (registered in Phase 3 / below)
# --------------------------------------------------------------------------- #
def _idx_jvp_v(v_dot, weights, indices, indptr, perm, v, task_begin, task_end, status, *, shape, transpose, **kw):
    w = weights if weights.shape[0] == 1 else weights[perm]
    # v_dot is a dense/float tangent, so this intentionally uses float csrmv;
    # the binary task workspace is only needed for event-driven primal paths.
    return (
        csrmv(w, indices, indptr, v_dot, shape=shape, transpose=transpose, backend=kw['backend']),
        jnp.zeros_like(task_begin),
        jnp.zeros_like(task_end),
        jnp.zeros_like(status),
    )


def _idx_jvp_weights(w_dot, weights, indices, indptr, perm, v, task_begin, task_end, status, *, shape, transpose, **kw):
    workspace = _workspace_from_task_operands(kw['task_capacity'], task_begin, task_end, status)
    tangent = binary_csrmv_indexed_p_call(
        w_dot,
        indices,
        indptr,
        perm,
        v,
        workspace,
        shape=shape,
        transpose=transpose,
        backend=kw['backend'],
    )[0]
    return tangent, jnp.zeros_like(task_begin), jnp.zeros_like(task_end), jnp.zeros_like(status)


def _idx_transpose_rule(ct, weights, indices, indptr, perm, events, task_begin, task_end, status, *, shape, transpose, **kw):
    if ad.is_undefined_primal(indices) or ad.is_undefined_primal(indptr) or ad.is_undefined_primal(perm):
        raise ValueError("Cannot transpose with respect to sparse structure / perm.")
    ct = ct[0]
    workspace = _workspace_from_task_operands(kw['task_capacity'], task_begin, task_end, status)
    if ad.is_undefined_primal(events):
        if type(ct) is ad.Zero:
            ct_events = ad.Zero(events)
        else:
            w = weights if weights.shape[0] == 1 else weights[perm]
            # ct_events is dense/float cotangent data, not binary events.
            ct_events = csrmv(w, indices, indptr, ct, shape=shape, transpose=not transpose, backend=kw['backend'])
        return weights, indices, indptr, perm, ct_events, ad.Zero(task_begin), ad.Zero(task_end), ad.Zero(status)
    else:
        if type(ct) is ad.Zero:
            ct_w = ad.Zero(weights)
        elif weights.aval.shape[0] == 1:
            base = binary_csrmv_indexed_p_call(
                jnp.ones(1, dtype=weights.aval.dtype), indices, indptr, perm, events,
                workspace, shape=shape, transpose=transpose, backend=kw['backend'],
            )[0]
            ct_w = jnp.inner(ct, base).reshape(*weights.aval.shape)
        else:
            # (row, col) of the traversed structure at slot k; weight at slot k
            # is weights[perm[k]], so scatter the per-slot cotangent back via perm.
            row, col = _csr_to_coo(indices, indptr)
            per_slot = events[row] * ct[col] if transpose else events[col] * ct[row]
            ct_w = jnp.zeros(weights.aval.shape, weights.aval.dtype).at[perm].add(per_slot)
        return ct_w, indices, indptr, perm, events, ad.Zero(task_begin), ad.Zero(task_end), ad.Zero(status)


def _idx_batching(args, axes, **kwargs):
    axes = tuple(axes)
    task_capacity = kwargs.get('task_capacity', args[5].shape[0])
    workspace = _workspace_from_task_operands(task_capacity, args[5], args[6], args[7])
    if axes == (None, None, None, None, 0, None, None, None):
        assert args[4].ndim == 2, 'Batching axis 0 requires 2D input.'
        r = binary_csrmm_indexed_p_call(
            args[0],
            args[1],
            args[2],
            args[3],
            args[4].T,
            workspace,
            shape=kwargs['shape'],
            transpose=kwargs['transpose'],
            backend=kwargs['backend'],
        )
        math_out = r[0]
        return (math_out, args[5], args[6], args[7]), (1, None, None, None)

    if axes == (None, None, None, None, 1, None, None, None):
        assert args[4].ndim == 2, 'Batching axis 1 requires 2D input.'
        r = binary_csrmm_indexed_p_call(
            args[0],
            args[1],
            args[2],
            args[3],
            args[4],
            workspace,
            shape=kwargs['shape'],
            transpose=kwargs['transpose'],
            backend=kwargs['backend'],
        )
        math_out = r[0]
        return (math_out, args[5], args[6], args[7]), (1, None, None, None)

    return general_batching_rule(binary_csrmv_indexed_p, args, axes, **kwargs)


binary_csrmv_indexed_p = XLACustomKernel(
    'binary_csrmv_indexed',
    doc="""
Low-level XLA custom-kernel primitive for ``binary_csrmv_indexed``.

Event-driven CSR sparse matrix-vector multiplication where heterogeneous
weights are read through a permutation ``perm`` (structural slot ``j`` uses
``weights[perm[j]]``).  Homogeneous weights ignore ``perm``.  Registered
backends: ``numba`` (CPU), ``jax_raw`` (CPU/GPU/TPU), and ``cuda_raw`` (CUDA
warp kernels in ``binary_csrmv.cu`` / ``binary_indexed_csrmv.cu``).
""",
)
binary_csrmv_indexed_p.def_numba_kernel(_csrmv_indexed_numba_kernel)
binary_csrmv_indexed_p.def_kernel('jax_raw', 'cpu', _binary_csrmv_indexed_jax_kernel)
binary_csrmv_indexed_p.def_kernel('jax_raw', 'gpu', _binary_csrmv_indexed_jax_kernel)
binary_csrmv_indexed_p.def_kernel('jax_raw', 'tpu', _binary_csrmv_indexed_jax_kernel)
binary_csrmv_indexed_p.def_cuda_raw_kernel(_binary_csrmv_indexed_cuda_kernel, asdefault=True)
binary_csrmv_indexed_p.def_jvp_rule2(_idx_jvp_weights, None, None, None, _idx_jvp_v, None, None, None)
binary_csrmv_indexed_p.def_transpose_rule(_idx_transpose_rule)
binary_csrmv_indexed_p.def_batching_rule(_idx_batching)
binary_csrmv_indexed_p.def_call(binary_csrmv_indexed_p_call)
binary_csrmv_indexed_p.def_tags('csr', 'binary', 'indexed')


# =========================================================================== #
# Matrix-matrix product: binary_csrmm_indexed
# =========================================================================== #


@namescope(static_argnames=("shape", "transpose"))
def binary_csrmm_indexed(
    data: Data,
    indices: Index,
    indptr: Indptr,
    perm: Index,
    B: Data,
    *,
    shape: MatrixShape,
    workspace,
    transpose: bool = False,
    backend: Optional[str] = None,
) -> Data:
    """Event-driven CSR matrix-matrix product with a fused weight gather index.

    Equivalent to ``binary_csrmm(data[perm], indices, indptr, B, ...)`` for
    heterogeneous weights, but the gather ``data[perm]`` is fused into the
    scatter kernel so only weights of *active* rows/columns are read.  For
    homogeneous weights (``data.size == 1``) ``perm`` is ignored.

    Parameters
    ----------
    data : jax.Array, numpy.ndarray, or brainunit.Quantity
        Non-zero weights in canonical order.  Shape ``(nse,)`` (heterogeneous)
        or ``(1,)`` (homogeneous).
    indices : jax.Array or numpy.ndarray
        Secondary-axis indices of the traversed (transposed) structure,
        shape ``(nse,)``, integer dtype.
    indptr : jax.Array or numpy.ndarray
        Pointer array of the traversed structure, shape ``(shape[0] + 1,)``.
    perm : jax.Array or numpy.ndarray
        Permutation mapping structural slot ``j`` to canonical weight index
        ``perm[j]``, shape ``(nse,)``, same integer dtype as ``indices``.
    B : jax.Array, numpy.ndarray, or brainunit.Quantity
        Dense event matrix.  Shape ``(shape[0], n)`` when ``transpose=True`` or
        ``(shape[1], n)`` when ``transpose=False``.  Boolean or floating dtype.
    shape : tuple of int
        Logical ``(m, k)`` of the traversed structure.
    transpose : bool, optional
        If ``True`` compute the transposed (scatter) product.  Default ``False``.
    backend : str or None, optional
        Compute backend.  Default ``None`` (auto-select).

    Returns
    -------
    C : jax.Array or brainunit.Quantity
        Result matrix, preserving units of ``data`` and ``B``.  Shape
        ``(shape[1], n)`` when ``transpose=True`` or ``(shape[0], n)``.

    See Also
    --------
    brainevent._csr.binary.binary_csrmm : The non-indexed event-driven product.
    brainevent._csr.binary_indexed.binary_csrmv_indexed : The matvec analog.
    """
    data, unitd = u.split_mantissa_unit(data)
    B, unitb = u.split_mantissa_unit(B)
    res = binary_csrmm_indexed_p_call(
        data, indices, indptr, perm, B, workspace,
        shape=shape, transpose=transpose, backend=backend,
    )[0]
    return u.maybe_decimal(res * (unitd * unitb))


# --------------------------------------------------------------------------- #
# numba CPU kernel
# --------------------------------------------------------------------------- #
def _csrmm_indexed_numba_kernel(
    weight_info: jax.ShapeDtypeStruct,
    vector_info: jax.ShapeDtypeStruct,
    transpose: bool,
    **kwargs
):
    import numba

    if weight_info.size == 1:
        # Homogeneous weights ignore ``perm``.
        if transpose:
            if vector_info.dtype == jnp.bool_:
                @numba.njit(parallel=get_numba_parallel(), fastmath=True, nogil=True)
                def mm(weights, indices, indptr, perm, B, posts):
                    w = weights[0]
                    posts[:] = 0.
                    for k in numba.prange(B.shape[1]):
                        for i in range(B.shape[0]):
                            if B[i, k]:
                                for j in range(indptr[i], indptr[i + 1]):
                                    posts[indices[j], k] += w
            else:
                @numba.njit(parallel=get_numba_parallel(), fastmath=True, nogil=True)
                def mm(weights, indices, indptr, perm, B, posts):
                    w = weights[0]
                    posts[:] = 0.
                    for k in numba.prange(B.shape[1]):
                        for i in range(B.shape[0]):
                            if B[i, k] > 0.:
                                for j in range(indptr[i], indptr[i + 1]):
                                    posts[indices[j], k] += w
        else:
            if vector_info.dtype == jnp.bool_:
                @numba.njit(parallel=get_numba_parallel(), fastmath=True, nogil=True)
                def mm(weights, indices, indptr, perm, B, posts):
                    w = weights[0]
                    n_cols = B.shape[1]
                    for i in numba.prange(indptr.shape[0] - 1):
                        r = np.zeros(n_cols, dtype=posts.dtype)
                        for j in range(indptr[i], indptr[i + 1]):
                            col_idx = indices[j]
                            for k in range(n_cols):
                                if B[col_idx, k]:
                                    r[k] += w
                        posts[i] = r
            else:
                @numba.njit(parallel=get_numba_parallel(), fastmath=True, nogil=True)
                def mm(weights, indices, indptr, perm, B, posts):
                    w = weights[0]
                    n_cols = B.shape[1]
                    for i in numba.prange(indptr.shape[0] - 1):
                        r = np.zeros(n_cols, dtype=posts.dtype)
                        for j in range(indptr[i], indptr[i + 1]):
                            col_idx = indices[j]
                            for k in range(n_cols):
                                if B[col_idx, k] > 0.:
                                    r[k] += w
                        posts[i] = r
    else:
        # Heterogeneous weights read through ``perm``.
        if transpose:
            if vector_info.dtype == jnp.bool_:
                @numba.njit(parallel=get_numba_parallel(), fastmath=True, nogil=True)
                def mm(weights, indices, indptr, perm, B, posts):
                    posts[:] = 0.
                    for k in numba.prange(B.shape[1]):
                        for i in range(B.shape[0]):
                            if B[i, k]:
                                for j in range(indptr[i], indptr[i + 1]):
                                    posts[indices[j], k] += weights[perm[j]]
            else:
                @numba.njit(parallel=get_numba_parallel(), fastmath=True, nogil=True)
                def mm(weights, indices, indptr, perm, B, posts):
                    posts[:] = 0.
                    for k in numba.prange(B.shape[1]):
                        for i in range(B.shape[0]):
                            if B[i, k] > 0.:
                                for j in range(indptr[i], indptr[i + 1]):
                                    posts[indices[j], k] += weights[perm[j]]
        else:
            if vector_info.dtype == jnp.bool_:
                @numba.njit(parallel=get_numba_parallel(), fastmath=True, nogil=True)
                def mm(weights, indices, indptr, perm, B, posts):
                    n_cols = B.shape[1]
                    for i in numba.prange(indptr.shape[0] - 1):
                        r = np.zeros(n_cols, dtype=posts.dtype)
                        for j in range(indptr[i], indptr[i + 1]):
                            col_idx = indices[j]
                            w = weights[perm[j]]
                            for k in range(n_cols):
                                if B[col_idx, k]:
                                    r[k] += w
                        posts[i] = r
            else:
                @numba.njit(parallel=get_numba_parallel(), fastmath=True, nogil=True)
                def mm(weights, indices, indptr, perm, B, posts):
                    n_cols = B.shape[1]
                    for i in numba.prange(indptr.shape[0] - 1):
                        r = np.zeros(n_cols, dtype=posts.dtype)
                        for j in range(indptr[i], indptr[i + 1]):
                            col_idx = indices[j]
                            w = weights[perm[j]]
                            for k in range(n_cols):
                                if B[col_idx, k] > 0.:
                                    r[k] += w
                        posts[i] = r

    def kernel(weights, indices, indptr, perm, B, task_begin, task_end, status):
        output = numba_kernel(mm, outs=kwargs['outs'][0])(weights, indices, indptr, perm, B)
        math_out = output[0] if isinstance(output, (tuple, list)) else output
        return math_out, task_begin, task_end, status

    return kernel


# --------------------------------------------------------------------------- #
# pure-JAX kernel (CPU/GPU/TPU fallback)
# --------------------------------------------------------------------------- #
def _binary_csrmm_indexed_jax_kernel(
    weight_info: jax.ShapeDtypeStruct,
    vector_info: jax.ShapeDtypeStruct,
    shape: MatrixShape,
    transpose: bool,
    **kwargs,
):
    """Pure-JAX kernel for fused indexed event-driven CSR matrix-matrix product."""
    m, k = shape
    n = vector_info.shape[1]
    is_homo = (weight_info.size == 1)
    is_bool = (vector_info.dtype == jnp.bool_)
    nse = kwargs['indices_info'].size
    out_dtype = kwargs['outs'][0].dtype

    if transpose:
        def kernel(weights, indices, indptr, perm, B, task_begin, task_end, status):
            row_ids = jnp.repeat(
                jnp.arange(m, dtype=indptr.dtype),
                jnp.diff(indptr),
                total_repeat_length=nse,
            )
            B_rows = B[row_ids]  # [nse, n]
            events = B_rows.astype(out_dtype) if is_bool else (B_rows > 0.).astype(out_dtype)
            w = weights[0] if is_homo else weights[perm][:, None]
            math_out = jnp.zeros((k, n), dtype=out_dtype).at[indices].add(w * events)
            return math_out, task_begin, task_end, status
    else:
        def kernel(weights, indices, indptr, perm, B, task_begin, task_end, status):
            row_ids = jnp.repeat(
                jnp.arange(m, dtype=indptr.dtype),
                jnp.diff(indptr),
                total_repeat_length=nse,
            )
            B_rows = B[indices]  # [nse, n]
            events = B_rows.astype(out_dtype) if is_bool else (B_rows > 0.).astype(out_dtype)
            w = weights[0] if is_homo else weights[perm][:, None]
            math_out = jnp.zeros((m, n), dtype=out_dtype).at[row_ids].add(w * events)
            return math_out, task_begin, task_end, status

    return kernel


# --------------------------------------------------------------------------- #
# CUDA warp kernel (homo source in binary_csrmm.cu, indexed source in
# binary_indexed_csrmm.cu)
# --------------------------------------------------------------------------- #
def _binary_csrmm_indexed_cuda_kernel(
    weight_info: jax.ShapeDtypeStruct,
    vector_info: jax.ShapeDtypeStruct,
    transpose: bool,
    **kwargs,
):
    """Build the CUDA FFI callable for the fused indexed event-driven matmat.

    Mirrors :func:`brainevent._csr.binary._binary_csrmm_cuda_kernel`, but for
    the heterogeneous case selects the ``..._perm_hetero`` kernels that read
    ``weights[perm[j]]`` and pass ``perm`` as an extra tensor.  Homogeneous
    weights reuse the plain homogeneous kernels (called without ``perm``).
    """
    _check_csr_cuda_structure_dtypes(kwargs['indices_info'], kwargs['indptr_info'])
    out_info = kwargs['outs'][0]
    is_homo = (weight_info.size == 1)
    spk_suffix = '_bool' if vector_info.dtype == jnp.bool_ else '_float'
    wt_sfx = dtype_suffix(weight_info.dtype)

    if transpose and is_homo:
        _cfg = get_hybrid_config()
        _mod = 'csr_binary_csrmm_hybrid' + module_suffix_for_config(_cfg)
        load_cuda_file(
            Path(__file__).parent.joinpath('binary_csrmm_hybrid.cu'),
            name=_mod,
            extra_cuda_cflags=compile_flags_for_config(_cfg),
            allow_cuda_graph=False,
        )
        logical_out_info = kwargs['outs'][0]
        physical_out_info = jax.ShapeDtypeStruct(
            (logical_out_info.shape[1], logical_out_info.shape[0]),
            logical_out_info.dtype,
        )
        out_info = (physical_out_info, *kwargs['outs'][1:])
        kernel_name = f'{_mod}.binary_csrmm_sraw_hybrid_homo{wt_sfx}{spk_suffix}'

        def kernel(weights, indices, indptr, perm, B, task_begin, task_end, status):
            output, task_begin_out, task_end_out, status_out = jax.ffi.ffi_call(
                kernel_name,
                out_info,
                input_output_aliases={4: 1, 5: 2, 6: 3},
            )(
                weights,
                indices,
                indptr,
                B,
                task_begin,
                task_end,
                status,
                task_capacity=kwargs['task_capacity'],
            )
            return jnp.transpose(output), task_begin_out, task_end_out, status_out

    elif transpose:
        _cfg = get_hybrid_config()
        _mod = 'csr_binary_indexed_csrmm_hybrid' + module_suffix_for_config(_cfg)
        load_cuda_file(
            Path(__file__).parent.joinpath('binary_indexed_csrmm_hybrid.cu'),
            name=_mod,
            extra_cuda_cflags=compile_flags_for_config(_cfg),
            allow_cuda_graph=False,
        )
        logical_out_info = kwargs['outs'][0]
        physical_out_info = jax.ShapeDtypeStruct(
            (logical_out_info.shape[1], logical_out_info.shape[0]),
            logical_out_info.dtype,
        )
        out_info = (physical_out_info, *kwargs['outs'][1:])
        kernel_name = f'{_mod}.binary_indexed_csrmm_sraw_hybrid_hetero{wt_sfx}{spk_suffix}'

        def kernel(weights, indices, indptr, perm, B, task_begin, task_end, status):
            output, task_begin_out, task_end_out, status_out = jax.ffi.ffi_call(
                kernel_name,
                out_info,
                input_output_aliases={5: 1, 6: 2, 7: 3},
            )(
                weights,
                indices,
                indptr,
                perm,
                B,
                task_begin,
                task_end,
                status,
                task_capacity=kwargs['task_capacity'],
            )
            return jnp.transpose(output), task_begin_out, task_end_out, status_out

    elif is_homo:
        load_cuda_file(
            Path(__file__).parent.joinpath('binary_csrmm.cu'),
            name='csr_binary_csrmm',
        )
        kernel_name = f'csr_binary_csrmm.binary_csrmm_nt_auto_homo{wt_sfx}{spk_suffix}'

        def kernel(weights, indices, indptr, perm, B, task_begin, task_end, status):
            math_out = jax.ffi.ffi_call(kernel_name, out_info)(weights, indices, indptr, B)
            return math_out, task_begin, task_end, status

    else:
        load_cuda_file(
            Path(__file__).parent.joinpath('binary_indexed_csrmm.cu'),
            name='csr_binary_indexed_csrmm',
        )
        kernel_name = f'csr_binary_indexed_csrmm.binary_csrmm_nt_auto_perm_hetero{wt_sfx}{spk_suffix}'

        def kernel(weights, indices, indptr, perm, B, task_begin, task_end, status):
            math_out = jax.ffi.ffi_call(kernel_name, out_info)(weights, indices, indptr, perm, B)
            return math_out, task_begin, task_end, status

    return kernel


def binary_csrmm_indexed_p_call(
    weights,
    indices,
    indptr,
    perm,
    B,
    workspace,
    *,
    shape: MatrixShape,
    transpose: bool,
    backend: Optional[str] = None,
):
    """Low-level primitive call for fused indexed event-driven CSR matmat.

    Validates inputs and dispatches ``binary_csrmm_indexed_p``.  See
    :func:`binary_csrmm_indexed` for the math.
    """
    assert perm.dtype in [jnp.int32, jnp.int64, jnp.uint32, jnp.uint64], "perm must be int32 or int64."
    assert indptr.ndim == 1, "Indptr must be 1D."
    assert indices.ndim == 1, "Indices must be 1D."
    assert perm.ndim == 1, "perm must be 1D."
    assert perm.shape == indices.shape, "perm must have the same shape as indices."
    _check_csr_structure_dtypes(indices, indptr)
    assert B.ndim == 2, "B must be 2D."
    if transpose:
        assert shape[0] == B.shape[0], "Shape mismatch for transpose operation."
    else:
        assert shape[1] == B.shape[0], "Shape mismatch for non-transpose operation."
    assert jnp.issubdtype(weights.dtype, jnp.floating), 'Weights must be a floating-point type.'

    if jnp.ndim(weights) == 0:
        weights = jnp.asarray([weights])
    if jnp.dtype(perm.dtype) != jnp.dtype(indptr.dtype):
        perm = perm.astype(indptr.dtype)

    out_info = (
        jax.ShapeDtypeStruct([shape[1], B.shape[1]], weights.dtype)
        if transpose else
        jax.ShapeDtypeStruct([shape[0], B.shape[1]], weights.dtype)
    )
    task_capacity, task_begin, task_end, status = _workspace_task_operands(workspace, indptr)
    task_begin_info = jax.ShapeDtypeStruct(task_begin.shape, task_begin.dtype)
    task_end_info = jax.ShapeDtypeStruct(task_end.shape, task_end.dtype)
    status_info = jax.ShapeDtypeStruct(status.shape, status.dtype)

    return binary_csrmm_indexed_p(
        weights, indices, indptr, perm, B,
        task_begin,
        task_end,
        status,
        outs=(out_info, task_begin_info, task_end_info, status_info),
        shape=shape,
        transpose=transpose,
        backend=backend,
        indices_info=jax.ShapeDtypeStruct(indices.shape, indices.dtype),
        indptr_info=jax.ShapeDtypeStruct(indptr.shape, indptr.dtype),
        perm_info=jax.ShapeDtypeStruct(perm.shape, perm.dtype),
        weight_info=jax.ShapeDtypeStruct(weights.shape, weights.dtype),
        vector_info=jax.ShapeDtypeStruct(B.shape, B.dtype),
        task_begin_info=task_begin_info,
        task_end_info=task_end_info,
        status_info=status_info,
        task_capacity=task_capacity,
    )


# --------------------------------------------------------------------------- #
# autodiff rules
# --------------------------------------------------------------------------- #
def _csrmm_idx_jvp_data(data_dot, data, indices, indptr, perm, B, task_begin, task_end, status, *, shape, transpose, **kw):
    # Linear in weights (events fixed): re-enter the indexed primitive.
    workspace = _workspace_from_task_operands(kw['task_capacity'], task_begin, task_end, status)
    tangent = binary_csrmm_indexed_p_call(
        data_dot, indices, indptr, perm, B, workspace, shape=shape, transpose=transpose, backend=kw['backend']
    )[0]
    return tangent, jnp.zeros_like(task_begin), jnp.zeros_like(task_end), jnp.zeros_like(status)


def _csrmm_idx_jvp_B(B_dot, data, indices, indptr, perm, B, task_begin, task_end, status, *, shape, transpose, **kw):
    # Event indicator is a step; surrogate tangent routes through float csrmm.
    w = data if data.shape[0] == 1 else data[perm]
    return (
        csrmm(w, indices, indptr, B_dot, shape=shape, transpose=transpose, backend=kw['backend']),
        jnp.zeros_like(task_begin),
        jnp.zeros_like(task_end),
        jnp.zeros_like(status),
    )


def _csrmm_idx_transpose_rule(ct, data, indices, indptr, perm, B, task_begin, task_end, status, *, shape, transpose, **kw):
    if ad.is_undefined_primal(indices) or ad.is_undefined_primal(indptr) or ad.is_undefined_primal(perm):
        raise ValueError("Cannot transpose with respect to sparse structure / perm.")
    ct = ct[0]
    workspace = _workspace_from_task_operands(kw['task_capacity'], task_begin, task_end, status)
    if ad.is_undefined_primal(B):
        if type(ct) is ad.Zero:
            ct_B = ad.Zero(B)
        else:
            w = data if data.shape[0] == 1 else data[perm]
            ct_B = csrmm(w, indices, indptr, ct, shape=shape, transpose=not transpose, backend=kw['backend'])
        return data, indices, indptr, perm, ct_B, ad.Zero(task_begin), ad.Zero(task_end), ad.Zero(status)
    else:
        if type(ct) is ad.Zero:
            ct_w = ad.Zero(data)
        elif data.aval.shape[0] == 1:
            base = binary_csrmm_indexed_p_call(
                jnp.ones(1, dtype=data.aval.dtype), indices, indptr, perm, B,
                workspace, shape=shape, transpose=transpose, backend=kw['backend'],
            )[0]
            ct_w = jnp.sum(base * ct).reshape(*data.aval.shape)
        else:
            # weight at slot k is weights[perm[k]]; scatter per-slot sddmm back via perm.
            row, col = _csr_to_coo(indices, indptr)
            if transpose:
                d_data = sddmm_coo_indices(B, ct.T, row, col).data
            else:
                d_data = sddmm_coo_indices(B, ct.T, col, row).data
            ct_w = jnp.zeros(data.aval.shape, data.aval.dtype).at[perm].add(d_data)
        return ct_w, indices, indptr, perm, B, ad.Zero(task_begin), ad.Zero(task_end), ad.Zero(status)


def _csrmm_idx_batching(args, axes, **kwargs):
    axes = tuple(axes)
    workspace = _workspace_from_task_operands(kwargs['task_capacity'], args[5], args[6], args[7])
    if axes == (None, None, None, None, 0, None, None, None):
        assert args[4].ndim == 3, 'Batching axis 0 requires 3D input.'
        batch_size, m, n = args[4].shape
        B = jnp.transpose(args[4], (1, 0, 2)).reshape(m, batch_size * n)
        r = binary_csrmm_indexed_p_call(
            args[0],
            args[1],
            args[2],
            args[3],
            B,
            workspace,
            shape=kwargs['shape'],
            transpose=kwargs['transpose'],
            backend=kwargs['backend'],
        )[0]
        r = jnp.reshape(r, [r.shape[0], batch_size, n])
        return (r, args[5], args[6], args[7]), (1, None, None, None)

    if axes == (None, None, None, None, 1, None, None, None):
        assert args[4].ndim == 3, 'Batching axis 1 requires 3D input.'
        m, batch_size, n = args[4].shape
        B = args[4].reshape(m, batch_size * n)
        r = binary_csrmm_indexed_p_call(
            args[0],
            args[1],
            args[2],
            args[3],
            B,
            workspace,
            shape=kwargs['shape'],
            transpose=kwargs['transpose'],
            backend=kwargs['backend'],
        )[0]
        r = jnp.reshape(r, [r.shape[0], batch_size, n])
        return (r, args[5], args[6], args[7]), (1, None, None, None)

    if axes == (None, None, None, None, 2, None, None, None):
        assert args[4].ndim == 3, 'Batching axis 2 requires 3D input.'
        m, n, batch_size = args[4].shape
        B = args[4].reshape(m, batch_size * n)
        r = binary_csrmm_indexed_p_call(
            args[0],
            args[1],
            args[2],
            args[3],
            B,
            workspace,
            shape=kwargs['shape'],
            transpose=kwargs['transpose'],
            backend=kwargs['backend'],
        )[0]
        r = jnp.reshape(r, [r.shape[0], n, batch_size])
        return (r, args[5], args[6], args[7]), (2, None, None, None)

    return general_batching_rule(binary_csrmm_indexed_p, args, axes, **kwargs)


binary_csrmm_indexed_p = XLACustomKernel(
    'binary_csrmm_indexed',
    doc="""
Low-level XLA custom-kernel primitive for ``binary_csrmm_indexed``.

Event-driven CSR sparse matrix-matrix multiplication where heterogeneous
weights are read through a permutation ``perm`` (structural slot ``j`` uses
``weights[perm[j]]``).  Homogeneous weights ignore ``perm``.
""",
)
binary_csrmm_indexed_p.def_numba_kernel(_csrmm_indexed_numba_kernel)
binary_csrmm_indexed_p.def_kernel('jax_raw', 'cpu', _binary_csrmm_indexed_jax_kernel)
binary_csrmm_indexed_p.def_kernel('jax_raw', 'gpu', _binary_csrmm_indexed_jax_kernel)
binary_csrmm_indexed_p.def_kernel('jax_raw', 'tpu', _binary_csrmm_indexed_jax_kernel)
binary_csrmm_indexed_p.def_cuda_raw_kernel(_binary_csrmm_indexed_cuda_kernel, asdefault=True)
binary_csrmm_indexed_p.def_jvp_rule2(_csrmm_idx_jvp_data, None, None, None, _csrmm_idx_jvp_B, None, None, None)
binary_csrmm_indexed_p.def_transpose_rule(_csrmm_idx_transpose_rule)
binary_csrmm_indexed_p.def_batching_rule(_csrmm_idx_batching)
binary_csrmm_indexed_p.def_call(binary_csrmm_indexed_p_call)
binary_csrmm_indexed_p.def_tags('csr', 'binary', 'indexed')
