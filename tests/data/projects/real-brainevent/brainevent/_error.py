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


__all__ = [
    'BrainEventError',
    'MathError',
    'UnsupportedOperationError',
    'KernelNotAvailableError',
    'KernelCompilationError',
    'KernelFallbackExhaustedError',
    'KernelExecutionError',
    'KernelError',
    'KernelToolchainError',
    'CompilationError',
    'KernelRegistrationError',
    'BenchmarkDataFnNotProvidedError',
    'CUDANotInstalledError',
    'NvccNotFoundError',
    'HostCompilerNotFoundError',
    'HeaderNotFoundError',
    'GpuArchDetectionError',
    'HostCompilerIncompatibleError',
    'UnsupportedArchError',
    'KernelLoadError',
]


class BrainEventError(Exception):
    pass


class MathError(BrainEventError):
    """Base exception for mathematical errors in brainevent operations.

    Raised when a mathematical operation fails due to invalid inputs,
    numerical issues, or constraint violations in sparse matrix or
    event-driven computations.

    Parameters
    ----------
    message : str
        A human-readable description of the mathematical error.

    See Also
    --------
    KernelExecutionError : Exception for runtime kernel failures.

    Notes
    -----
    This is the base exception for all math-related errors in brainevent.
    Catch this exception to handle any mathematical failure generically.

    Examples
    --------
    .. code-block:: python

        >>> from brainevent._error import MathError
        >>> raise MathError("Matrix dimensions are incompatible")  # doctest: +SKIP
        Traceback (most recent call last):
            ...
        brainevent.MathError: Matrix dimensions are incompatible
    """
    __module__ = 'brainevent'


class UnsupportedOperationError(BrainEventError):
    """Raised when an operation is structurally meaningless for a representation.

    This signals a *deliberate refusal*: the requested method is part of the
    common :class:`~brainevent.DataRepresentation` contract, but the concrete
    representation cannot give it a well-defined meaning. It is distinct from
    :class:`NotImplementedError` (which marks an abstract base stub that a
    subclass is expected to override) -- catching ``UnsupportedOperationError``
    lets callers distinguish "this representation will never support this" from
    "not written yet".

    Parameters
    ----------
    message : str
        A human-readable description naming why the operation is unsupported and,
        where possible, an explicit alternative (for example, materialising a
        just-in-time-connectivity matrix with ``.tocsr()`` first).

    See Also
    --------
    MathError : Raised for invalid inputs to an otherwise-supported operation.

    Notes
    -----
    A just-in-time-connectivity matrix, for instance, refuses :meth:`fromdense`
    (it cannot recover the generating ``(prob, seed)``) and the per-synapse
    ``dt2t`` / ``update_on_*`` protocols (its weight is a distribution
    parameter, not a per-synapse array).

    Examples
    --------
    .. code-block:: python

        >>> from brainevent._error import UnsupportedOperationError
        >>> raise UnsupportedOperationError(
        ...     "JITC connectivity cannot recover (prob, seed) from a dense matrix"
        ... )  # doctest: +SKIP
    """
    __module__ = 'brainevent'


class KernelError(BrainEventError):
    """Base exception for brainevent."""
    pass


class KernelNotAvailableError(KernelError):
    """Raised when a requested kernel backend is not installed or is version-incompatible.

    This exception signals that a specific backend (e.g., Warp, Pallas,
    Triton) was requested but could not be loaded, either because the
    package is not installed or because the installed version does not
    meet the minimum requirements.

    Parameters
    ----------
    message : str
        A human-readable description indicating which backend is
        unavailable and how to install or upgrade it.

    See Also
    --------
    KernelFallbackExhaustedError : Raised when no fallback backends
        remain after all alternatives have been tried.
    KernelCompilationError : Raised when a backend is available but
        the kernel fails to compile.

    Notes
    -----
    This exception is typically raised during the lowering phase when
    JAX attempts to compile the computation graph and discovers that the
    selected backend cannot be loaded.

    Examples
    --------
    .. code-block:: python

        >>> from brainevent._error import KernelNotAvailableError
        >>> raise KernelNotAvailableError(
        ...     "Pallas is not available on this platform."
        ... )  # doctest: +SKIP
    """
    __module__ = 'brainevent'


class KernelCompilationError(KernelError):
    """Raised when a kernel fails to compile on the target backend.

    This exception indicates that the backend is available but the
    kernel source could not be compiled, for example due to unsupported
    operations, shape mismatches, or backend-specific limitations.

    Parameters
    ----------
    message : str
        A human-readable description of the compilation failure,
        including the backend name and the underlying error details.

    See Also
    --------
    KernelNotAvailableError : Raised when the backend itself is missing.
    KernelExecutionError : Raised when a compiled kernel fails at runtime.

    Notes
    -----
    Compilation errors are backend-specific. For example, Pallas kernels
    may fail if unsupported JAX operations (like ``dynamic_slice`` on
    Triton) are used, while Warp kernels may fail on type mismatches.

    Examples
    --------
    .. code-block:: python

        >>> from brainevent._error import KernelCompilationError
        >>> raise KernelCompilationError(
        ...     "Pallas kernel compilation failed: dynamic_slice not supported on Triton"
        ... )  # doctest: +SKIP
    """
    __module__ = 'brainevent'


class KernelFallbackExhaustedError(KernelError):
    """Raised when all fallback kernel backends have been exhausted.

    This exception is raised by :class:`~brainevent._op.main.XLACustomKernel`
    when no registered backend can handle the requested operation on the
    current platform, either because no backends are registered or
    because the explicitly requested backend is not available.

    Parameters
    ----------
    message : str
        A human-readable description listing the primitive name, the
        platform, and the backends that were attempted.

    See Also
    --------
    KernelNotAvailableError : Raised for a single missing backend.
    XLACustomKernel : The kernel manager that raises this exception
        during dispatch.

    Notes
    -----
    The error message typically includes the list of available backends
    for the platform so that the user can switch to an alternative via
    the ``backend=`` keyword argument or :meth:`XLACustomKernel.set_default`.

    Examples
    --------
    .. code-block:: python

        >>> from brainevent._error import KernelFallbackExhaustedError
        >>> raise KernelFallbackExhaustedError(
        ...     "No kernels registered for platform 'tpu' in primitive 'csrmv'."
        ... )  # doctest: +SKIP
    """
    __module__ = 'brainevent'


class KernelExecutionError(KernelError):
    """Raised when a compiled kernel fails during execution at runtime.

    This exception wraps runtime errors that occur after a kernel has
    been successfully compiled and dispatched, such as out-of-bounds
    memory access, numerical overflow, or device-side assertions. The
    error message includes information about available alternative
    backends.

    Parameters
    ----------
    message : str
        A human-readable description of the runtime failure, typically
        including the backend name, the operation, and suggestions for
        alternative backends.

    See Also
    --------
    KernelCompilationError : Raised when the kernel fails to compile
        rather than at runtime.
    KernelFallbackExhaustedError : Raised when no backends are available
        at all.

    Notes
    -----
    When this exception is raised, the user may be able to work around
    the issue by switching to a different backend via the ``backend=``
    keyword argument in the operation call.

    Examples
    --------
    .. code-block:: python

        >>> from brainevent._error import KernelExecutionError
        >>> raise KernelExecutionError(
        ...     "Warp kernel 'csrmv' failed. Try backend='pallas' instead."
        ... )  # doctest: +SKIP
    """
    __module__ = 'brainevent'


class CUDANotInstalledError(KernelError):
    """Raised when a CUDA operation is requested but the package is not installed.

    See Also
    --------
    KernelNotAvailableError : General exception for unavailable backends.

    """
    __module__ = 'brainevent'


class BenchmarkDataFnNotProvidedError(BrainEventError):
    """Raised when ``benchmark()`` is called but no data function has been registered.

    :meth:`~brainevent._op.main.XLACustomKernel.benchmark` requires a
    benchmark data generator to be registered via
    :meth:`~brainevent._op.main.XLACustomKernel.def_benchmark_data`.
    This exception is raised if that function is missing so that the
    caller receives a clear, actionable error instead of a silent
    fallback.

    Parameters
    ----------
    message : str
        A description indicating which primitive is missing its data
        function and how to fix the problem.

    See Also
    --------
    XLACustomKernel.def_benchmark_data : Register a benchmark data
        generator for a primitive.
    XLACustomKernel.benchmark : The method that raises this exception.

    Examples
    --------
    .. code-block:: python

        >>> from brainevent._error import BenchmarkDataFnNotProvidedError
        >>> raise BenchmarkDataFnNotProvidedError(
        ...     "No benchmark data function registered for 'csrmv'. "
        ...     "Use def_benchmark_data() to register one."
        ... )  # doctest: +SKIP
    """
    __module__ = 'brainevent'


class KernelToolchainError(KernelError):
    """Compilation toolchain missing or incompatible."""
    pass


class NvccNotFoundError(KernelToolchainError):
    """The CUDA compiler (nvcc) could not be located (E-NVCC)."""
    __module__ = 'brainevent'


class HostCompilerNotFoundError(KernelToolchainError):
    """No host C++ compiler (g++/clang++) could be located (E-CXX)."""
    __module__ = 'brainevent'


class HeaderNotFoundError(KernelToolchainError):
    """A required header (cuda_runtime.h / XLA FFI / brainevent) is missing (E-HDR)."""
    __module__ = 'brainevent'


class GpuArchDetectionError(KernelToolchainError):
    """GPU compute capability could not be detected (E-ARCH)."""
    __module__ = 'brainevent'


class CompilationError(KernelCompilationError):
    """CUDA or C++ compilation failed."""

    def __init__(self, message: str, compiler_output: str = "",
                 command: str = "", stage: str = "compile"):
        self.compiler_output = compiler_output
        self.command = command
        self.stage = stage
        full_msg = message
        if command:
            full_msg += f"\n\nCommand:\n  {command}"
        if compiler_output:
            full_msg += f"\n\nCompiler output:\n{compiler_output}"
        super().__init__(full_msg)


class HostCompilerIncompatibleError(CompilationError):
    """Host C++ compiler version is not supported by this CUDA/nvcc (E-CXXVER)."""
    __module__ = 'brainevent'


class UnsupportedArchError(KernelToolchainError):
    """nvcc does not support the requested GPU architecture (E-ARCH-UNSUP).

    Raised when the detected/requested compute capability is newer than the
    installed CUDA toolkit understands (e.g. ``sm_120`` on a CUDA 12 nvcc).

    Parameters
    ----------
    message : str
        Human-readable description and remediation.
    compiler_output : str, optional
        Captured nvcc stderr/stdout.
    command : str, optional
        The nvcc command that failed.
    stage : str, optional
        Compilation stage (``"compile"`` / ``"build"``).
    """
    __module__ = 'brainevent'

    def __init__(self, message: str, *, compiler_output: str = "",
                 command: str = "", stage: str = ""):
        super().__init__(message)
        self.compiler_output = compiler_output
        self.command = command
        self.stage = stage


class KernelLoadError(KernelError):
    """A compiled .so failed to load via dlopen (E-LOAD)."""
    __module__ = 'brainevent'


class KernelRegistrationError(KernelError):
    """JAX FFI target registration failed."""
    pass
