"""BART's BLAS, LAPACK and FFT tables, filled from compiled libraries already in the process.

Sources, most preferred first: MKL (the ``mkl`` extra, Linux only), the library
torch links, Accelerate (macOS), and SciPy's ``cython_blas`` / ``cython_lapack``
capsules.  ``BARTORCH_BLAS_LIBRARY`` puts one first: ``mkl``, ``torch``,
``scipy``, or a library path.  BART's FFT is executed by MKL's DFTI when a
source has all of it, and by the transform compiled into the library otherwise.
FINUFFT's FFT is oneMKL's where a source has its FFTW3 interface and the library
carries a FINUFFT built on it.
:func:`sources` reports what serves each routine.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import sysconfig
from pathlib import Path

from bartorch._lib import library

_keepalive: list[object] = []
_sources: dict[str, str] = {}
_fft_symbols: dict[str, int] = {}

_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_PyCapsule_GetName = ctypes.pythonapi.PyCapsule_GetName
_PyCapsule_GetName.restype = ctypes.c_char_p
_PyCapsule_GetName.argtypes = [ctypes.py_object]


class _Provider:
    """One source of Fortran-ABI routines, looked up by symbol name."""

    def __init__(self, name: str):
        self.name = name

    def lookup(self, symbol: str) -> int | None:
        raise NotImplementedError


class _SharedLibrary(_Provider):
    def __init__(self, name: str, handle: ctypes.CDLL):
        super().__init__(name)
        self._handle = handle

    def lookup(self, symbol: str) -> int | None:
        try:
            fn = getattr(self._handle, symbol)
        except AttributeError:
            return None
        return ctypes.cast(fn, ctypes.c_void_p).value


class _CythonCapsules(_Provider):
    """SciPy's ``cython_blas`` / ``cython_lapack`` function-pointer tables.

    The capsules hold the addresses of the compiled routines themselves, so a
    call reaches OpenBLAS directly; the names carry no trailing underscore.
    """

    def __init__(self, name: str, table: dict):
        super().__init__(name)
        self._table = table

    def lookup(self, symbol: str) -> int | None:
        capsule = self._table.get(symbol.rstrip("_"))
        if capsule is None:
            return None
        return _PyCapsule_GetPointer(capsule, _PyCapsule_GetName(capsule))


def _mkl_library() -> Path | None:
    """A full MKL in this environment, if one is installed.

    The ``mkl`` wheel puts its libraries under the install prefix rather than
    beside the package, and that prefix is not always ``sys.prefix``.  The
    interpreter a virtual environment was made from (``sys.base_prefix``) is
    not searched: an MKL there was never installed into this environment.
    """
    roots = dict.fromkeys([Path(sys.prefix), Path(sysconfig.get_paths()["data"])])
    names = (
        "libmkl_rt.dylib",
        "libmkl_rt.so.2",
        "libmkl_rt.so.3",
        "libmkl_rt.so",
        "mkl_rt.2.dll",
        "mkl_rt.3.dll",
    )
    for root in roots:
        for sub in ("lib", "lib64", "Library/bin"):
            for name in names:
                candidate = root / sub / name
                if candidate.exists():
                    return candidate
    return None


def _torch_library() -> Path | None:
    try:
        import torch
    except ImportError:
        return None
    libdir = Path(torch.__file__).resolve().parent / "lib"
    names = {"darwin": ["libtorch_cpu.dylib"], "win32": ["torch_cpu.dll"]}.get(
        sys.platform, ["libtorch_cpu.so"]
    )
    for name in names:
        if (libdir / name).exists():
            return libdir / name
    return None


def _open(name: str, path: str) -> _Provider | None:
    try:
        return _SharedLibrary(name, ctypes.CDLL(path))
    except OSError:
        return None


def _mkl_providers() -> list[_Provider | None]:
    mkl = _mkl_library()
    return [_open("mkl", str(mkl))] if mkl is not None else []


def _torch_providers() -> list[_Provider | None]:
    found: list[_Provider | None] = []
    torch_lib = _torch_library()
    if torch_lib is not None:
        found.append(_open(torch_lib.name, str(torch_lib)))
    if sys.platform == "darwin":
        found.append(
            _open("Accelerate", "/System/Library/Frameworks/Accelerate.framework/Accelerate")
        )
    # Windows has no handle on the process's own symbols: each DLL exports
    # its own, and torch_cpu.dll is asked above.
    if sys.platform != "win32":
        found.append(_open("process", None))
    return found


def _scipy_providers() -> list[_Provider | None]:
    found: list[_Provider | None] = []
    for module in ("scipy.linalg.cython_blas", "scipy.linalg.cython_lapack"):
        try:
            table = __import__(module, fromlist=["__pyx_capi__"]).__pyx_capi__
        except (ImportError, AttributeError):
            continue
        found.append(_CythonCapsules("scipy", table))
    return found


_NAMED = {"mkl": _mkl_providers, "torch": _torch_providers, "scipy": _scipy_providers}


def _providers() -> list[_Provider]:
    """Sources of compiled routines, most preferred first."""
    found: list[_Provider | None] = []

    override = os.environ.get("BARTORCH_BLAS_LIBRARY")
    if override and override not in _NAMED:
        found.append(_open(override, override))

    for name in _NAMED if not override else [override] + [n for n in _NAMED if n != override]:
        found.extend(_NAMED[name]())

    return [p for p in found if p is not None]


def install() -> dict[str, str]:
    """Fill the library's routine table; return the source chosen for each."""
    lib = library()
    names = [lib.bartorch_backend_name(i).decode() for i in range(lib.bartorch_backend_count())]
    fallback = {n: bool(lib.bartorch_backend_has_fallback(i)) for i, n in enumerate(names)}

    providers = _providers()
    _keepalive.extend(providers)

    chosen: dict[str, str] = {}
    for name in names:
        for provider in providers:
            address = provider.lookup(name)
            if address is not None:
                lib.bartorch_backend_set(name.encode(), address)
                chosen[name] = provider.name
                break
        else:
            chosen[name] = "reference" if fallback[name] else "missing"

    chosen["fft"] = _install_fft(providers)
    chosen["finufft_fft"] = _install_finufft_fft(providers)

    _sources.clear()
    _sources.update(chosen)
    return dict(chosen)


#: The DFTI entry points BART's FFT is executed with.  All or none: a table
#: with a hole in it would plan and then fail to transform.
_DFTI = (
    "DftiCreateDescriptor_s_md",
    "DftiSetValue",
    "DftiCommitDescriptor",
    "DftiComputeForward",
    "DftiComputeBackward",
    "DftiFreeDescriptor",
)


def _install_fft(providers: list[_Provider]) -> str:
    """Hand the library MKL's DFTI, if one of these sources has all of it."""
    lib = library()
    for provider in providers:
        found = {name: provider.lookup(name) for name in _DFTI}
        if any(address is None for address in found.values()):
            continue
        for name, address in found.items():
            if 0 != lib.bartorch_fft_set(name.encode(), address):
                break
        else:
            if lib.bartorch_fft_usable():
                _fft_symbols.clear()
                _fft_symbols.update(found)
                return provider.name
    return "built-in"


#: The FFTW3 entry points a FINUFFT built on oneMKL calls
#: (``src/csrc/substitute/fftw_bind.c``).  All or none, as for DFTI.
_FFTW = tuple(
    f"{prefix}_{name}"
    for prefix in ("fftwf", "fftw")
    for name in (
        "plan_many_dft",
        "execute_dft",
        "destroy_plan",
        "init_threads",
        "plan_with_nthreads",
        "cleanup_threads",
        "forget_wisdom",
        "cleanup",
    )
)


def _install_finufft_fft(providers: list[_Provider]) -> str:
    """Hand the library oneMKL's FFTW3 interface, if one of these sources has all of it.

    Returns the FFT FINUFFT's plans are made on from then on.
    """
    lib = library()
    for provider in providers:
        found = {name: provider.lookup(name) for name in _FFTW}
        if all(address is not None for address in found.values()):
            for name, address in found.items():
                lib.bartorch_finufft_fftw_set(name.encode(), address)
            break
    return lib.bartorch_finufft_fft().decode()


@contextlib.contextmanager
def built_in_fft():
    """Context in which BART's FFT is executed by the compiled-in transform instead of DFTI.

    Plans made before it are affected too.  For tests that compare the two.
    """
    lib = library()
    was = bool(lib.bartorch_fft_usable())

    for name in _DFTI:
        lib.bartorch_fft_set(name.encode(), None)
    try:
        yield
    finally:
        if was:
            for name, address in _fft_symbols.items():
                lib.bartorch_fft_set(name.encode(), address)


def sources() -> dict[str, str]:
    """What serves each routine after :func:`install`.

    One entry per BLAS and LAPACK routine, plus ``fft`` for the transform
    behind BART's FFT and ``finufft_fft`` for the one behind FINUFFT's.
    """
    return dict(_sources)
