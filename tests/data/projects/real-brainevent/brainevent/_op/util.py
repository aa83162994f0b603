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

# -*- coding: utf-8 -*-

import functools
import importlib.util
from typing import Any, Callable, Optional, Protocol, Sequence, Tuple, TYPE_CHECKING, Union

import jax
import numpy as np
from jax import tree_util
from jax.interpreters import ad

from brainevent._compatible_import import Primitive, init_zero

if TYPE_CHECKING:
    from .main import XLACustomKernel

warp_installed = importlib.util.find_spec('warp') is not None

# Cached lazy import, initialized by import_warp() on first use.
warp = None

__all__ = [
    'defjvp',
    'general_batching_rule',
    'jaxtype_to_warptype',
    'jaxinfo_to_warpinfo',
    'check_pallas_jax_version',
    'check_warp_installed',
    'dtype_suffix',
    'spike_suffix',
]

_DTYPE_SUFFIX = {
    np.dtype('float16'): '_f16',
    np.dtype('float32'): '_f32',
    np.dtype('float64'): '_f64',
    np.dtype('bfloat16'): '_bf16',
}


def dtype_suffix(dtype) -> str:
    """Map a weight dtype to the suffix used in CUDA kernel symbol names.

    The ``.cu`` sources define one kernel per supported floating-point
    precision, distinguished by a trailing suffix (``_f16``, ``_f32``,
    ``_f64``, ``_bf16``). This helper is the single place that encodes that
    naming contract between Python and the generated kernels.

    Parameters
    ----------
    dtype : dtype_like
        Any object accepted by :func:`numpy.dtype`, including
        ``jax.numpy`` dtypes and :class:`jax.ShapeDtypeStruct` ``.dtype``
        attributes.

    Returns
    -------
    suffix : str
        The kernel-name suffix for *dtype*. Unmapped dtypes fall back to
        ``'_f32'``.

    See Also
    --------
    spike_suffix : Companion helper for the spike/event operand suffix.

    Notes
    -----
    The ``'_f32'`` fallback preserves the behaviour of the per-module tables
    this helper replaced. It is deliberately lenient rather than raising,
    because raising here would change dispatch behaviour for callers that
    currently pass an unmapped dtype and silently receive the f32 kernel.

    Examples
    --------
    .. code-block:: python

        >>> import jax.numpy as jnp
        >>> from brainevent._op.util import dtype_suffix
        >>> dtype_suffix(jnp.float32)
        '_f32'

        >>> dtype_suffix(jnp.bfloat16)
        '_bf16'
    """
    return _DTYPE_SUFFIX.get(np.dtype(dtype), '_f32')


def spike_suffix(dtype) -> str:
    """Map a spike/event dtype to its CUDA kernel symbol suffix.

    Event operands are dispatched to either a boolean-specialized kernel or a
    float-valued one.

    Parameters
    ----------
    dtype : dtype_like
        Any object accepted by :func:`numpy.dtype`.

    Returns
    -------
    suffix : str
        ``'_bool'`` for boolean event arrays, ``'_float'`` otherwise.

    See Also
    --------
    dtype_suffix : Companion helper for the weight dtype suffix.

    Examples
    --------
    .. code-block:: python

        >>> import jax.numpy as jnp
        >>> from brainevent._op.util import spike_suffix
        >>> spike_suffix(jnp.bool_)
        '_bool'

        >>> spike_suffix(jnp.float32)
        '_float'
    """
    return '_bool' if np.dtype(dtype) == np.dtype(np.bool_) else '_float'

_MIN_JAX_VERSION_FOR_PALLAS = (0, 7, 1)
_WARP_INSTALL_ERROR_MESSAGE = (
    "Warp kernels require the 'warp' package, but it is not installed.\n"
    "Please install Warp using one of the following methods:\n"
    "  pip install warp-lang\n"
    "For more information, visit: https://nvidia.github.io/warp/user_guide/installation.html"
)


def import_warp():
    """Import warp lazily and configure runtime defaults."""
    global warp, warp_installed
    if warp is not None:
        return warp
    if not warp_installed:
        raise ImportError(_WARP_INSTALL_ERROR_MESSAGE)
    try:
        import warp as _warp  # pylint: disable=import-error, import-outside-toplevel
        _warp.config.quiet = True
    except Exception as exc:
        warp_installed = False
        raise ImportError(_WARP_INSTALL_ERROR_MESSAGE) from exc
    warp = _warp
    return warp


def check_pallas_jax_version():
    """Check that the installed JAX version satisfies Pallas requirements.

    Pallas kernels require JAX >= 0.7.1.  This function verifies the
    installed version and raises an informative error if it is too old.

    Raises
    ------
    RuntimeError
        If the installed JAX version is older than 0.7.1.

    Examples
    --------
    .. code-block:: python

        >>> check_pallas_jax_version()  # succeeds silently on JAX >= 0.7.1
    """
    if jax.__version_info__ < _MIN_JAX_VERSION_FOR_PALLAS:
        min_ver = '.'.join(str(v) for v in _MIN_JAX_VERSION_FOR_PALLAS)
        raise RuntimeError(
            f"Pallas kernels require JAX >= {min_ver}, "
            f"but found JAX {jax.__version__}. "
            f"Please upgrade JAX: pip install --upgrade jax"
        )


def check_warp_installed():
    """Check that the Warp package is installed and importable.

    This function verifies that the ``warp`` Python package is available
    at runtime.  It is called automatically before dispatching to a Warp
    kernel backend.

    Raises
    ------
    RuntimeError
        If the ``warp`` package is not installed or could not be
        imported.

    See Also
    --------
    jaxtype_to_warptype : Convert a JAX/NumPy dtype to a Warp type.
    jaxinfo_to_warpinfo : Convert a ``jax.ShapeDtypeStruct`` to a Warp
        array type.

    Examples
    --------
    .. code-block:: python

        >>> check_warp_installed()  # succeeds silently when warp is installed
    """
    try:
        import_warp()
    except ImportError as exc:
        raise RuntimeError(_WARP_INSTALL_ERROR_MESSAGE) from exc


def defjvp(primitive: Union[Primitive, 'XLACustomKernel'], *jvp_rules: Optional[Callable]) -> None:
    """Define per-input JVP rules for a JAX primitive.

    This function allows defining Jacobian-vector product (JVP) rules
    for JAX primitives, extending the functionality of
    ``jax.interpreters.ad.defjvp``.  While the standard JAX function
    primarily supports primitives that return a single result
    (``multiple_results=False``), this implementation supports defining
    independent JVP rules for each input parameter regardless of whether
    the primitive returns single or multiple results.

    This is particularly useful for custom operations or primitives
    where different inputs have different differentiation rules, or where
    the primitive produces multiple outputs that need distinct handling
    in automatic differentiation.

    Parameters
    ----------
    primitive : Primitive or XLACustomKernel
        The JAX ``Primitive`` object (or an ``XLACustomKernel`` instance,
        from which the underlying ``Primitive`` is extracted) for which
        the JVP rule is being defined.
    *jvp_rules : callable or None
        One callable per input primal.  Each callable has the signature
        ``rule(tangent, *primals, **params) -> tangent_out`` and computes
        the tangent contribution from the corresponding input.  Pass
        ``None`` for inputs whose JVP contribution is zero.

    Raises
    ------
    AssertionError
        If *primitive* (after unwrapping) is not a ``Primitive`` instance.

    See Also
    --------
    XLACustomKernel.def_jvp_rule : Register a single monolithic JVP
        rule for an ``XLACustomKernel``.
    XLACustomKernel.def_jvp_rule2 : Convenience wrapper around this
        function.
    general_batching_rule : General batching rule for custom primitives.

    Notes
    -----
    When the primitive has ``multiple_results=True``, a custom internal
    JVP implementation (``_standard_jvp``) is used that correctly
    handles tuple outputs.  For single-result primitives,
    ``_single_result_jvp`` -- an inlined equivalent of the standard JAX
    JVP -- is used.  (JAX's ``jax.interpreters.ad.standard_jvp`` was
    removed in JAX 0.9, so this implementation no longer depends on it.)

    Examples
    --------
    .. code-block:: python

        >>> # Assume `my_prim` is a JAX Primitive with two inputs.
        >>> def jvp_rule_input0(tangent, x, y, **kw):
        ...     return tangent * y
        >>> def jvp_rule_input1(tangent, x, y, **kw):
        ...     return tangent * x
        >>> defjvp(my_prim, jvp_rule_input0, jvp_rule_input1)
    """
    # Import XLACustomKernel locally to avoid circular dependencies.
    from .main import XLACustomKernel

    # If the input is an XLACustomKernel, extract the underlying JAX primitive.
    if isinstance(primitive, XLACustomKernel):
        primitive = primitive.primitive
    # Ensure that the 'primitive' argument is indeed a JAX Primitive object.
    assert isinstance(primitive, Primitive), f'The primitive should be a JAX primitive. But we got {primitive}'

    # Check if the primitive returns multiple results.
    if primitive.multiple_results:
        # If yes, use the custom _standard_jvp function designed to handle multiple results.
        # ad.primitive_jvps is the JAX registry for JVP rules.
        # functools.partial pre-fills the jvp_rules and primitive arguments for _standard_jvp.
        ad.primitive_jvps[primitive] = functools.partial(_standard_jvp, jvp_rules, primitive)
    else:
        # If no (single result), use an inlined standard JVP.
        # ``jax.interpreters.ad.standard_jvp`` was removed in JAX 0.9, so we
        # reproduce its behavior here to keep single-result primitives working.
        ad.primitive_jvps[primitive] = functools.partial(_single_result_jvp, jvp_rules, primitive)


def _single_result_jvp(jvp_rules, primitive: Primitive, primals, tangents, **params):
    """Compute the JVP for a single-result primitive.

    This is an internal helper used by :func:`defjvp` when the primitive
    has ``multiple_results=False``.  It reproduces the behavior of the
    standard JAX JVP (``jax.interpreters.ad.standard_jvp``, removed in
    JAX 0.9): it binds the primals, evaluates each per-input JVP rule
    whose tangent is not ``Zero``, and sums the resulting tangent
    contributions into the single output tangent.

    Parameters
    ----------
    jvp_rules : sequence of callable or None
        Per-input JVP rules (see :func:`defjvp`).
    primitive : Primitive
        The JAX primitive (single result).
    primals : tuple
        Primal input values.
    tangents : tuple
        Tangent input values (may contain ``ad.Zero``).
    **params
        Additional keyword arguments forwarded from the primitive bind.

    Returns
    -------
    tuple
        A pair ``(val_out, tangent_out)`` where *val_out* is the single
        primal output and *tangent_out* is the summed tangent
        contribution.

    Raises
    ------
    ValueError
        If ``len(jvp_rules) != len(primals)``. Zero-tangent inputs are
        expressed by passing ``None`` for their rule (see :func:`defjvp`),
        so the rule list must have exactly one entry per input; a
        length mismatch means a rule was forgotten (or an extra one added)
        when the primitive was registered, and letting it through would
        silently truncate/ignore rules via ``zip`` instead of raising.
    """
    if len(jvp_rules) != len(primals):
        raise ValueError(
            f"defjvp for primitive '{primitive.name}' was given "
            f"{len(jvp_rules)} JVP rule(s) but the primitive has "
            f"{len(primals)} input(s). Pass exactly one rule per input "
            f"(use None for an input whose tangent contribution is zero)."
        )
    val_out = primitive.bind(*primals, **params)
    tangents_out = [
        rule(t, *primals, **params)
        for rule, t in zip(jvp_rules, tangents)
        if rule is not None and type(t) is not ad.Zero
    ]
    return val_out, functools.reduce(ad.add_tangents, tangents_out, init_zero(val_out))


def _standard_jvp(jvp_rules, primitive: Primitive, primals, tangents, **params):
    """Compute the JVP for a multi-result primitive.

    This is an internal helper used by :func:`defjvp` when the primitive
    has ``multiple_results=True``.  It binds the primals, evaluates
    each per-input JVP rule whose tangent is not ``Zero``, and sums the
    resulting tangent contributions.

    Parameters
    ----------
    jvp_rules : sequence of callable or None
        Per-input JVP rules (see :func:`defjvp`).
    primitive : Primitive
        The JAX primitive.
    primals : tuple
        Primal input values.
    tangents : tuple
        Tangent input values (may contain ``ad.Zero``).
    **params
        Additional keyword arguments forwarded from the primitive bind.

    Returns
    -------
    tuple
        A pair ``(val_out, tangents_out)`` where *val_out* is the tuple
        of primal outputs and *tangents_out* is the summed tangent
        contributions with the same pytree structure as *val_out*.

    Raises
    ------
    ValueError
        If ``len(jvp_rules) != len(primals)`` (see :func:`_single_result_jvp`
        for the rationale -- the same exact-arity contract applies here),
        or if *primitive* does not have ``multiple_results=True``.
    """
    if not primitive.multiple_results:
        raise ValueError(
            f"_standard_jvp is only valid for multiple-result primitives, "
            f"but {primitive} has multiple_results=False."
        )
    if len(jvp_rules) != len(primals):
        raise ValueError(
            f"defjvp for primitive '{primitive.name}' was given "
            f"{len(jvp_rules)} JVP rule(s) but the primitive has "
            f"{len(primals)} input(s). Pass exactly one rule per input "
            f"(use None for an input whose tangent contribution is zero)."
        )
    val_out = tuple(primitive.bind(*primals, **params))
    tree = tree_util.tree_structure(val_out)
    tangents_out = []
    for rule, t in zip(jvp_rules, tangents):
        if rule is not None and type(t) is not ad.Zero:
            out = rule(t, *primals, **params)
            # A multi-result JVP rule must return an explicit sequence (one
            # tangent per output).  Wrapping a bare array in ``tuple(...)``
            # would instead iterate its leading axis and silently fragment it
            # into per-row leaves, so reject non-sequence returns loudly.
            if not isinstance(out, (tuple, list)):
                raise TypeError(
                    f"JVP rule {getattr(rule, '__name__', rule)!r} for "
                    f"multiple-result primitive {primitive} must return a "
                    f"tuple/list of tangents (one per output), but got "
                    f"{type(out).__name__}."
                )
            r = tuple(out)
            if tree_util.tree_structure(r) != tree:
                raise ValueError(
                    f"JVP rule {getattr(rule, '__name__', rule)!r} for "
                    f"{primitive} returned a tangent with pytree structure "
                    f"{tree_util.tree_structure(r)}, which does not match the "
                    f"primitive output structure {tree}."
                )
            tangents_out.append(r)
    r = functools.reduce(
        _add_tangents,
        tangents_out,
        tree_util.tree_map(init_zero, val_out)
    )
    return val_out, r


def _add_tangents(xs, ys):
    """Element-wise addition of two tangent pytrees.

    Parameters
    ----------
    xs : pytree
        First tangent pytree (may contain ``ad.Zero`` leaves).
    ys : pytree
        Second tangent pytree (may contain ``ad.Zero`` leaves).

    Returns
    -------
    pytree
        The element-wise sum of *xs* and *ys*.
    """
    return tree_util.tree_map(ad.add_tangents, xs, ys, is_leaf=lambda a: isinstance(a, ad.Zero))


def general_batching_rule(
    prim: Primitive,
    args: Sequence,
    axes: Sequence[Optional[int]],
    **kwargs
) -> Tuple[Any, Any]:
    """General-purpose batching rule for custom JAX primitives.

    Implements batching by separating batched and non-batched arguments,
    moving all batch dimensions to axis 0, and then applying the primitive
    to each element in the batch via ``jax.lax.scan``.

    This function is registered as the default batching rule for every
    :class:`XLACustomKernel` during initialization.

    Parameters
    ----------
    prim : Primitive
        The JAX primitive operation to be batched.
    args : sequence of array_like
        Input arguments to the primitive.
    axes : sequence of int or None
        Batch dimension index for each argument.  ``None`` indicates
        that the corresponding argument is not batched.
    **kwargs
        Additional keyword arguments forwarded to the primitive.

    Returns
    -------
    outs : pytree
        The batched outputs from applying the primitive.
    out_dim : pytree
        A pytree with the same structure as *outs*.  When at least one
        operand is batched, every leaf is ``0`` (the batch dimension is
        the leading axis of each output).  When no operand is batched
        (every entry of *axes* is ``None``), every leaf is ``None`` to
        signal that the outputs carry no batch dimension (the value JAX
        uses internally as the ``not_mapped`` sentinel).

    Notes
    -----
    All batch dimensions are moved to axis 0 before scanning.  The scan
    carry is unused (always ``0``); only the stacked scan outputs are
    returned.  As a special case, if *no* operand is batched the function
    short-circuits: it binds the primitive once on the original arguments
    and reports every output as unbatched, avoiding an empty
    ``jax.lax.scan`` (which would raise ``ValueError: scan got no values
    to scan over``).

    See Also
    --------
    XLACustomKernel.register_general_batching : Registers this function
        as the batching rule for a primitive.
    XLACustomKernel.def_batching_rule : Override with a custom batching
        rule.

    Examples
    --------
    .. code-block:: python

        >>> import functools
        >>> from jax.interpreters import batching
        >>> batching.primitive_batchers[my_prim] = functools.partial(
        ...     general_batching_rule, my_prim
        ... )
    """
    batch_axes, batch_args, non_batch_args = [], {}, {}
    for ax_i, ax in enumerate(axes):
        if ax is None:
            non_batch_args[f'ax{ax_i}'] = args[ax_i]
        else:
            batch_args[f'ax{ax_i}'] = args[ax_i] if ax == 0 else jax.numpy.moveaxis(args[ax_i], ax, 0)
            batch_axes.append(ax_i)

    # If no operand is actually batched (every axis is ``None``), there is
    # nothing to scan over -- ``jax.lax.scan(f, 0, {})`` would raise
    # "scan got no values to scan over".  Bind the primitive once and mark
    # every output as unbatched.  ``None`` is the batch dimension JAX uses
    # for an unmapped output (its ``not_mapped`` sentinel is ``None`` in
    # every supported version), so we avoid the public ``batching.not_mapped``
    # symbol, which newer jax has removed.
    if not batch_args:
        if isinstance(prim, Primitive):
            out = prim.bind(*args, **kwargs)
        else:
            out = prim(*args, **kwargs)
        return out, tree_util.tree_map(lambda _: None, out)

    def f(_, x):
        """Apply the primitive to a single batch element for ``jax.lax.scan``.

        Parameters
        ----------
        _ : int
            Scan carry value (unused).
        x : dict
            The current batch slice for each batched argument.

        Returns
        -------
        tuple
            A pair ``(carry, primitive_output)`` where *carry* is the
            unchanged scan carry (``0``).
        """
        pars = tuple(
            [(x[f'ax{i}'] if i in batch_axes else non_batch_args[f'ax{i}'])
             for i in range(len(axes))]
        )
        if isinstance(prim, Primitive):
            return 0, prim.bind(*pars, **kwargs)
        else:
            return 0, prim(*pars, **kwargs)

    _, outs = jax.lax.scan(f, 0, batch_args)
    out_vals, out_tree = jax.tree.flatten(outs)
    out_dim = jax.tree.unflatten(out_tree, (0,) * len(out_vals))
    return outs, out_dim


class ShapeDtype(Protocol):
    """Protocol for objects that expose ``shape`` and ``dtype`` attributes.

    This protocol is used for type hinting to indicate that an object
    provides information about its tensor shape (as a tuple of integers)
    and its data type (as a NumPy dtype).  It is commonly satisfied by
    ``jax.ShapeDtypeStruct``, ``jax.core.ShapedArray``, and any
    user-defined class with the matching attributes.

    See Also
    --------
    OutType : Type alias combining ``ShapeDtype`` and sequences thereof.

    Examples
    --------
    .. code-block:: python

        >>> import numpy as np
        >>> from typing import Tuple
        >>>
        >>> class MyTensorSpec:
        ...     def __init__(self, shape: Tuple[int, ...], dtype: np.dtype):
        ...         self._shape = shape
        ...         self._dtype = dtype
        ...
        ...     @property
        ...     def shape(self) -> Tuple[int, ...]:
        ...         return self._shape
        ...
        ...     @property
        ...     def dtype(self) -> np.dtype:
        ...         return self._dtype
        >>>
        >>> def process_spec(spec: ShapeDtype):
        ...     print(f"Shape: {spec.shape}, Dtype: {spec.dtype}")
        >>>
        >>> spec = MyTensorSpec(shape=(10, 20), dtype=np.float32)
        >>> process_spec(spec)
        Shape: (10, 20), Dtype: float32
    """

    @property
    def shape(self) -> Tuple[int, ...]:
        """The shape of the tensor as a tuple of integers."""
        ...

    @property
    def dtype(self) -> np.dtype:
        """The data type of the tensor elements (e.g., ``np.float32``)."""
        ...


OutType = Union[ShapeDtype, Sequence[ShapeDtype]]


def _transform_to_shapedarray(a):
    """Convert an object with ``shape`` and ``dtype`` to a ``jax.core.ShapedArray``.

    Parameters
    ----------
    a : ShapeDtype
        Any object satisfying the :class:`ShapeDtype` protocol.

    Returns
    -------
    jax.core.ShapedArray
        The corresponding JAX abstract array.
    """
    return jax.core.ShapedArray(a.shape, a.dtype)


def abstract_arguments(outs):
    """Flatten an output specification into abstract ``ShapedArray`` objects.

    Takes a pytree of objects with ``shape`` and ``dtype`` attributes
    (e.g., ``jax.ShapeDtypeStruct``) and returns a flat list of
    ``jax.core.ShapedArray`` instances together with the tree definition
    needed to reconstruct the original structure.

    Parameters
    ----------
    outs : OutType
        An output specification -- a single ``ShapeDtype`` object or a
        pytree (list, tuple, dict, ...) of them.

    Returns
    -------
    flat_outs : list of jax.core.ShapedArray
        Flattened list of abstract arrays.
    tree_def : jax.tree_util.PyTreeDef
        The pytree definition that can be used to unflatten the outputs
        back into the original structure.

    See Also
    --------
    ShapeDtype : Protocol describing the expected input objects.

    Examples
    --------
    .. code-block:: python

        >>> import jax
        >>> import jax.numpy as jnp
        >>> spec = [
        ...     jax.ShapeDtypeStruct((10,), jnp.float32),
        ...     jax.ShapeDtypeStruct((5, 3), jnp.int32),
        ... ]
        >>> flat, treedef = abstract_arguments(spec)
        >>> len(flat)
        2
        >>> flat[0].shape
        (10,)
    """
    outs = jax.tree.map(_transform_to_shapedarray, outs)
    outs, tree_def = jax.tree.flatten(outs)
    return outs, tree_def


def jaxtype_to_warptype(dtype: Union[np.dtype, type]) -> Any:
    """Convert a JAX / NumPy dtype to the corresponding Warp scalar type.

    Maps standard NumPy data types (which are also used by JAX) to their
    Warp equivalents.  This is needed when constructing Warp kernel
    signatures or Warp array types from JAX metadata.

    Parameters
    ----------
    dtype : numpy.dtype or type
        The data type to convert.  Accepts anything ``numpy.dtype`` can
        normalize, including NumPy scalar types (``np.float32``), JAX
        dtypes (``jnp.float32``), ``np.dtype`` instances
        (``np.dtype('float32')``), and Python builtins (``float``,
        ``int``, ``bool``).  Builtins are normalized via
        ``numpy.dtype`` first (e.g. ``float`` -> ``float64``,
        ``int`` -> the platform default integer, ``bool`` -> ``bool_``).

    Returns
    -------
    warp type
        The corresponding Warp scalar type (e.g., ``warp.float32``,
        ``warp.int32``, ``warp.bool``).

    Raises
    ------
    ImportError
        If the ``warp`` package is not installed.
    ValueError
        If *dtype* cannot be normalized by ``numpy.dtype`` or does not
        correspond to any supported Warp type.  Supported types are:
        ``float16``, ``float32``, ``float64``, ``int8``, ``int16``,
        ``int32``, ``int64``, ``uint8``, ``uint16``, ``uint32``,
        ``uint64``, and ``bool_``.  ``bfloat16`` and complex dtypes are
        **not** supported by Warp and raise a clear ``ValueError``.

    See Also
    --------
    jaxinfo_to_warpinfo : Convert a full ``jax.ShapeDtypeStruct`` to a
        Warp array type.
    check_warp_installed : Verify that Warp is available.

    Notes
    -----
    The dtype is first normalized with ``numpy.dtype(dtype)`` so that
    Python builtins and dtype-like objects all resolve to a canonical
    ``numpy.dtype`` before mapping.  This avoids the pitfall that
    ``float == np.float64`` is ``False`` even though ``np.dtype(float)``
    *is* ``float64``.  The mapping covers all scalar types supported by
    both NumPy and Warp.  ``bfloat16`` (which Warp has no scalar for) and
    complex types are unsupported and raise ``ValueError``.

    Examples
    --------
    .. code-block:: python

        >>> import numpy as np
        >>> warp_type = jaxtype_to_warptype(np.float32)
        >>> warp_type  # warp.float32
        >>> jaxtype_to_warptype(float) is jaxtype_to_warptype(np.float64)
        True
    """
    warp_mod = import_warp()

    # Normalize Python builtins (float/int/bool) and dtype-like objects to a
    # canonical numpy.dtype.  Without this, ``float == np.float64`` is False
    # and builtins would be spuriously rejected despite the Union[..., type]
    # signature.  ``bfloat16`` / unrecognized objects raise TypeError here,
    # which we surface as a clear ValueError below.
    try:
        np_dtype = np.dtype(dtype)
    except TypeError as exc:
        raise ValueError(
            f"Warp does not support computations with dtype: {dtype!r}"
        ) from exc

    _warp_scalar_types = {
        # float
        np.dtype(np.float16): warp_mod.float16,
        np.dtype(np.float32): warp_mod.float32,
        np.dtype(np.float64): warp_mod.float64,
        # integer
        np.dtype(np.int8): warp_mod.int8,
        np.dtype(np.int16): warp_mod.int16,
        np.dtype(np.int32): warp_mod.int32,
        np.dtype(np.int64): warp_mod.int64,
        # unsigned integer
        np.dtype(np.uint8): warp_mod.uint8,
        np.dtype(np.uint16): warp_mod.uint16,
        np.dtype(np.uint32): warp_mod.uint32,
        np.dtype(np.uint64): warp_mod.uint64,
        # boolean
        np.dtype(np.bool_): warp_mod.bool,
    }

    try:
        return _warp_scalar_types[np_dtype]
    except KeyError:
        raise ValueError(
            f"Warp does not support computations with dtype: {np_dtype} "
            f"(bfloat16 and complex types are unsupported)."
        )


def jaxinfo_to_warpinfo(jax_info: jax.ShapeDtypeStruct) -> Any:
    """Convert a ``jax.ShapeDtypeStruct`` to a Warp array type descriptor.

    Takes a JAX shape-and-dtype specification and creates the
    corresponding Warp array type with matching data type and
    dimensionality.  This is useful when building Warp kernel
    signatures from JAX output specifications.

    Parameters
    ----------
    jax_info : jax.ShapeDtypeStruct
        A JAX structure containing ``shape``, ``dtype``, and ``ndim``
        attributes describing an array.

    Returns
    -------
    warp.types.array
        A Warp array type with matching data type and number of
        dimensions, suitable for use in Warp kernel definitions.

    Raises
    ------
    ImportError
        If the ``warp`` package is not installed (propagated from
        :func:`jaxtype_to_warptype`).
    ValueError
        If the dtype in *jax_info* is not supported by Warp (propagated
        from :func:`jaxtype_to_warptype`), or if *jax_info* describes a
        0-D scalar (``ndim == 0``).  Warp arrays have a minimum
        dimensionality of 1, so a 0-D input is rejected rather than
        silently promoted to ``ndim=1`` (which would create a hidden
        JAX<->Warp shape mismatch).

    See Also
    --------
    jaxtype_to_warptype : Convert a single dtype to a Warp type.
    check_warp_installed : Verify that Warp is available.

    Notes
    -----
    The resulting Warp array type is constructed via
    ``warp.array(dtype=..., ndim=...)`` which creates a Warp type
    descriptor (not an actual array).  This is typically used in Warp
    kernel function signatures to define input/output types.

    Warp has a minimum array dimensionality of 1.  A JAX 0-D scalar
    (``shape == ()``, ``ndim == 0``) therefore has no faithful Warp array
    representation; passing one raises ``ValueError`` instead of being
    silently bumped to ``ndim=1``.  Reshape the scalar to ``(1,)`` before
    conversion if a length-1 array is intended.

    Examples
    --------
    .. code-block:: python

        >>> import jax
        >>> import numpy as np
        >>> info = jax.ShapeDtypeStruct(shape=(32, 32), dtype=np.float32)
        >>> warp_arr_type = jaxinfo_to_warpinfo(info)
    """
    warp_mod = import_warp()
    if jax_info.ndim == 0:
        raise ValueError(
            "Warp arrays require ndim >= 1, but got a 0-D scalar "
            f"(shape={jax_info.shape!r}). Reshape to (1,) before conversion "
            "if a length-1 array is intended."
        )
    dtype = jaxtype_to_warptype(jax_info.dtype)
    return warp_mod.array(dtype=dtype, ndim=jax_info.ndim)
