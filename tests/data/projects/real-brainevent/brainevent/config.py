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

"""User-level runtime configuration for brainevent.

Provides in-memory controls for:
- Numba parallel execution and thread count
- LFSR algorithm selection for JIT connectivity kernels
- Global default backend selection per platform
"""

from typing import Dict, Optional

__all__ = [
    'set_numba_parallel',
    'get_numba_parallel',
    'get_numba_num_threads',
    'set_lfsr_algorithm',
    'get_lfsr_algorithm',
    'set_backend',
    'get_backend',
    'clear_backends',
    'prefer_system_nvcc',
    'set_compute_capability',
    'get_compute_capability',
]


_numba_parallel: bool = False
_numba_num_threads: Optional[int] = None


def set_numba_parallel(parallel: bool = True, num_threads: Optional[int] = None):
    """Enable or disable Numba parallel execution and optionally set the thread count.

    Controls whether Numba-based kernels in brainevent use parallel execution
    (via ``numba.prange``). When ``num_threads`` is provided, it also calls
    ``numba.set_num_threads`` to configure the Numba thread pool size.

    Parameters
    ----------
    parallel : bool, optional
        If ``True``, enable Numba parallel mode. If ``False``, disable it.
        Defaults to ``True``.
    num_threads : int or None, optional
        Number of threads for Numba's thread pool. If ``None``, the Numba
        default is used (typically the number of CPU cores). Defaults to
        ``None``.

    See Also
    --------
    get_numba_parallel : Query whether Numba parallel mode is enabled.
    get_numba_num_threads : Query the configured Numba thread count.

    Notes
    -----
    Setting ``num_threads`` imports the ``numba`` package and immediately calls
    ``numba.set_num_threads``. This affects all subsequent Numba JIT-compiled
    functions, not just those in brainevent.

    Examples
    --------
    .. code-block:: python

        >>> import brainevent
        >>> brainevent.set_numba_parallel(True, num_threads=4)
        >>> brainevent.get_numba_parallel()
        True
        >>> brainevent.get_numba_num_threads()
        4
    """
    global _numba_parallel, _numba_num_threads
    _numba_parallel = parallel
    _numba_num_threads = num_threads
    if num_threads is not None:
        import numba
        numba.set_num_threads(num_threads)


def get_numba_parallel() -> bool:
    """Return whether Numba parallel execution is currently enabled.

    Returns
    -------
    bool
        ``True`` if Numba parallel mode is enabled, ``False`` otherwise.

    See Also
    --------
    set_numba_parallel : Enable or disable Numba parallel mode.
    get_numba_num_threads : Query the configured Numba thread count.

    Examples
    --------
    .. code-block:: python

        >>> import brainevent
        >>> brainevent.get_numba_parallel()
        False
        >>> brainevent.set_numba_parallel(True)
        >>> brainevent.get_numba_parallel()
        True
    """
    return _numba_parallel


def get_numba_num_threads() -> Optional[int]:
    """Return the configured Numba thread count.

    Returns
    -------
    int or None
        The number of threads configured for Numba's thread pool, or ``None``
        if no explicit thread count has been set (in which case Numba uses its
        own default, typically the number of CPU cores).

    See Also
    --------
    set_numba_parallel : Set the Numba parallel mode and thread count.
    get_numba_parallel : Query whether Numba parallel mode is enabled.

    Examples
    --------
    .. code-block:: python

        >>> import brainevent
        >>> brainevent.get_numba_num_threads()  # None by default
        >>> brainevent.set_numba_parallel(True, num_threads=8)
        >>> brainevent.get_numba_num_threads()
        8
    """
    return _numba_num_threads


# ──────────────────────────────────────────────────────────────────────
#  LFSR algorithm configuration
# ──────────────────────────────────────────────────────────────────────

_VALID_LFSR_ALGORITHMS = ('lfsr88', 'lfsr113', 'lfsr128')
_lfsr_algorithm: str = 'lfsr88'


def set_lfsr_algorithm(algorithm: str):
    """Set the global LFSR algorithm used by JIT connectivity kernels.

    Parameters
    ----------
    algorithm : str
        One of ``'lfsr88'``, ``'lfsr113'``, or ``'lfsr128'``.

    Raises
    ------
    ValueError
        If *algorithm* is not one of the valid choices.

    See Also
    --------
    get_lfsr_algorithm : Query the current LFSR algorithm.

    Examples
    --------
    .. code-block:: python

        >>> import brainevent
        >>> brainevent.config.set_lfsr_algorithm('lfsr113')
        >>> brainevent.config.get_lfsr_algorithm()
        'lfsr113'
    """
    global _lfsr_algorithm
    if algorithm not in _VALID_LFSR_ALGORITHMS:
        raise ValueError(
            f"Invalid LFSR algorithm {algorithm!r}. "
            f"Valid options are: {_VALID_LFSR_ALGORITHMS}"
        )
    _lfsr_algorithm = algorithm


def get_lfsr_algorithm() -> str:
    """Return the current global LFSR algorithm name.

    Returns
    -------
    str
        One of ``'lfsr88'``, ``'lfsr113'``, or ``'lfsr128'``.

    See Also
    --------
    set_lfsr_algorithm : Set the LFSR algorithm.

    Examples
    --------
    .. code-block:: python

        >>> import brainevent
        >>> brainevent.config.get_lfsr_algorithm()
        'lfsr88'
    """
    return _lfsr_algorithm


# ──────────────────────────────────────────────────────────────────────
#  Global backend configuration
# ──────────────────────────────────────────────────────────────────────

_global_backends: Dict[str, str] = {}


def set_backend(platform: str, backend: Optional[str]):
    """Set the global default backend for a platform across all primitives.

    After this call, every primitive that has a kernel registered for
    *backend* on *platform* will use it by default, unless overridden by
    an explicit ``backend=`` keyword argument at call time.

    Parameters
    ----------
    platform : str
        The platform name (e.g., ``'cpu'``, ``'gpu'``, ``'tpu'``).
    backend : str or None
        The backend name (e.g., ``'warp'``, ``'pallas'``, ``'numba'``).
        Pass ``None`` to clear the global default for this platform,
        reverting to per-primitive defaults.

    Raises
    ------
    ValueError
        If *backend* is an empty string.

    See Also
    --------
    get_backend : Query the current global backend for a platform.
    clear_backends : Clear all global backend defaults.

    Notes
    -----
    Backend selection is resolved inside each primitive's MLIR lowering
    function, and JAX caches lowered/compiled executables (both the eager
    dispatch cache and the ``jit`` compilation cache) keyed on primitive +
    abstract values, **not** on the global backend setting. If this call
    actually changes the effective value for *platform*, it therefore calls
    ``jax.clear_caches()`` so that already-compiled call sites pick up the
    new backend on their next invocation (at the cost of forcing
    recompilation everywhere on next use). Calling ``set_backend`` with the
    value it already has is a no-op and does **not** clear caches.

    This makes ``set_backend`` a **setup-time, single-threaded** control:
    it is intended to be called before the hot loop / before other threads
    start compiling, not toggled concurrently from multiple threads while
    other work is in flight (``jax.clear_caches()`` is process-global).
    For per-call, thread-safe backend selection, pass ``backend=<name>``
    directly to the primitive call instead -- it is a bind parameter and
    therefore part of the cache key, so it composes safely with concurrent
    dispatch.

    Examples
    --------
    .. code-block:: python

        >>> import brainevent
        >>> brainevent.set_backend('gpu', 'warp')
        >>> brainevent.get_backend('gpu')
        'warp'
        >>> brainevent.set_backend('gpu', None)  # clear
        >>> brainevent.get_backend('gpu') is None
        True
    """
    if isinstance(backend, str) and backend == '':
        raise ValueError("backend cannot be an empty string.")
    if backend is None:
        changed = platform in _global_backends
        _global_backends.pop(platform, None)
    else:
        changed = _global_backends.get(platform) != backend
        _global_backends[platform] = backend
    if changed:
        import jax
        jax.clear_caches()


def get_backend(platform: str) -> Optional[str]:
    """Get the global default backend for a platform.

    Parameters
    ----------
    platform : str
        The platform name (e.g., ``'cpu'``, ``'gpu'``, ``'tpu'``).

    Returns
    -------
    str or None
        The globally configured backend name, or ``None`` if no global
        default has been set for this platform.

    See Also
    --------
    set_backend : Set the global backend for a platform.
    clear_backends : Clear all global backend defaults.

    Examples
    --------
    .. code-block:: python

        >>> import brainevent
        >>> brainevent.get_backend('cpu')  # None by default
        >>> brainevent.set_backend('cpu', 'numba')
        >>> brainevent.get_backend('cpu')
        'numba'
    """
    return _global_backends.get(platform)


def clear_backends():
    """Clear all global backend defaults.

    After calling this function, all primitives revert to their
    per-primitive defaults (set via ``XLACustomKernel.set_default``
    or registration order).

    See Also
    --------
    set_backend : Set the global backend for a platform.
    get_backend : Query the current global backend for a platform.

    Notes
    -----
    Like :func:`set_backend`, this invalidates JAX's lowering/compilation
    caches (via ``jax.clear_caches()``) so that call sites already compiled
    under the old global backends pick up the reverted per-primitive
    defaults -- but only when there was something to clear: if no global
    backend was set for any platform, this is a no-op and does not touch
    JAX's caches. This is a setup-time, single-threaded control; see
    :func:`set_backend` for the concurrency caveat.

    Examples
    --------
    .. code-block:: python

        >>> import brainevent
        >>> brainevent.set_backend('gpu', 'warp')
        >>> brainevent.clear_backends()
        >>> brainevent.get_backend('gpu') is None
        True
    """
    if _global_backends:
        _global_backends.clear()
        import jax
        jax.clear_caches()


# ──────────────────────────────────────────────────────────────────────
#  CUDA nvcc discovery preference
# ──────────────────────────────────────────────────────────────────────

def prefer_system_nvcc(enable: bool = True) -> None:
    """Switch the nvcc discovery preference.

    Parameters
    ----------
    enable : bool
        ``True`` → prefer the nvcc on the system ``PATH``;
        ``False`` → prefer the pip nvcc bundled with ``jax[cuda*]`` (default).

    Examples
    --------
    .. code-block:: python

        >>> import brainevent
        >>> brainevent.config.prefer_system_nvcc()       # switch to system-first
        >>> brainevent.config.prefer_system_nvcc(False)  # switch back to pip-first
    """
    from brainevent._op.kernix_toolchain import set_nvcc_discovery
    set_nvcc_discovery("system" if enable else "pip")


def set_compute_capability(value: "str | list[str] | None" = None) -> None:
    """Pin the target GPU compute capability for CUDA compilation.

    By default brainevent auto-detects the architecture from the visible JAX
    GPU device (falling back to ``nvidia-smi``).  Use this to override that —
    for cross-compilation on a machine without a visible GPU, or to build a
    fat binary covering several architectures.

    Parameters
    ----------
    value : str or list of str or None
        A compute capability in any common spelling (``"8.6"``, ``"sm_86"``,
        ``"compute_86"``) or a list of them.  ``None`` restores automatic
        detection.

    See Also
    --------
    get_compute_capability : Query the current pin.

    Examples
    --------
    .. code-block:: python

        >>> import brainevent
        >>> brainevent.config.set_compute_capability("8.6")
        >>> brainevent.config.get_compute_capability()
        ['sm_86']
        >>> brainevent.config.set_compute_capability(["8.0", "9.0"])  # fat binary
        >>> brainevent.config.set_compute_capability(None)  # back to auto-detect
    """
    from brainevent._op.kernix_toolchain import set_compute_capabilities
    set_compute_capabilities(value)


def get_compute_capability() -> "list[str] | None":
    """Return the pinned compute capabilities, or ``None`` if auto-detecting.

    See Also
    --------
    set_compute_capability : Pin the target compute capability.
    """
    from brainevent._op.kernix_toolchain import get_compute_capabilities
    return get_compute_capabilities()
