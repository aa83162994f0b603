"""Where each BART command is exposed, or why it is not.

Every command BART builds is exactly one of: wrapped by hand (marked with
:func:`bartorch._call.curated`), derived from the catalogue into a
:mod:`bartorch.tools` section, or private.  ``tests/test_tools.py`` checks the
partition, so a command added by a BART update must be placed before the
suite passes.  A private command still runs through
:func:`bartorch._dispatch.dispatch`.
"""

from __future__ import annotations

from importlib import import_module

from bartorch._catalogue import COMMANDS

__all__ = [
    "CURATED_MODULES",
    "PRIVATE",
    "REFERENCE_MODULE",
    "TOOLS_MODULES",
    "curated_names",
    "curated_wrappers",
    "derived_names",
]

#: The :mod:`bartorch.tools` sections; each lists its derived commands in ``_DERIVED``.
TOOLS_MODULES = (
    "bartorch.tools._simulate",
    "bartorch.tools._sampling",
    "bartorch.tools._calib",
    "bartorch.tools._process",
    "bartorch.tools._lowrank",
)

#: The private reconstruction commands an assembly is tested against.
REFERENCE_MODULE = "bartorch._reference"

#: Every module holding hand-written wrappers.
CURATED_MODULES = (
    "bartorch._fourier",
    "bartorch._util",
    "bartorch._wavelet",
    "bartorch._thresh",
    "bartorch._interp",
    "bartorch.io",
    "bartorch.priors._denoise",
    *TOOLS_MODULES,
)

_FILES = "reads or writes files or streams rather than arrays"
_NETWORK = "trains or applies BART's own networks, whose weights are files"
_TORCH = "an array operation torch provides"
_DEMO = "a demonstration or a diagnostic"
_LATER = "not wrapped yet"
_ASSEMBLED = "bartorch.apps assembles it; bartorch._reference runs the command it is tested against"
_ENCODING = (
    "an encoding from bartorch.linop under a solver from bartorch.optim; "
    "bartorch._reference runs the command"
)
_SIMULATED = (
    "a signal simulation, which blochsim does differentiably and bartorch.nlop drives; "
    "a curve from a command is a number, not a model a fit can be built on"
)

#: Commands without a public wrapper, and why.
PRIVATE: dict[str, str] = {
    "window": "bartorch.hann_window, fermi_window and apodize cover it",
    "bart": "the dispatcher that runs the other commands",
    "ismrmrd": "needs libismrmrd, which this build does not compile",
    **dict.fromkeys(
        ("tee", "multicfl", "tensorflow", "twixread", "toimg", "toraw", "pulseq"), _FILES
    ),
    **dict.fromkeys(("stl", "pol2mask", "morphop"), "mesh and mask geometry, not needed here"),
    **dict.fromkeys(
        ("cunet", "mnist", "nnet", "reconet", "nlinvnet", "sample", "onehotenc"), _NETWORK
    ),
    **dict.fromkeys(("conway", "mandelbrot", "bench", "show"), _DEMO),
    **dict.fromkeys(
        (
            "cabs",
            "carg",
            "conj",
            "creal",
            "cpyphs",
            "invert",
            "spow",
            "zexp",
            "saxpy",
            "scale",
            "sdot",
            "fmac",
            "avg",
            "std",
            "var",
            "zeros",
            "ones",
            "index",
            "vec",
            "copy",
            "reshape",
            "squeeze",
            "flatten",
            "transpose",
            "repmat",
            "join",
            "slice",
            "extract",
            "calc",
            "poly",
            "svd",
            "hist",
            "compress",
            "sort",
        ),
        _TORCH,
    ),
    **dict.fromkeys(("bloch", "epg", "mobasig", "pulse", "seq", "sim", "signal"), _SIMULATED),
    **dict.fromkeys(("fftrot", "gmm", "bet", "extractdc"), _LATER),
    "ictv": "fails for every input in this BART (ictv.c:97 reshapes the wrong side)",
    **dict.fromkeys(("pics", "moba", "mobafit"), _ASSEMBLED),
    "itsense": "bartorch.apps.pics with l2; bartorch._reference runs the command",
    "looklocker": (
        "T1 from Look-Locker maps in closed form; bartorch.apps.moba and "
        "bartorch.apps.mobafit with nlop.InversionRecovery fit T1 directly"
    ),
    **dict.fromkeys(("wave", "wshfl"), _ENCODING),
    "estscaling": "bartorch.optim.data_scaling runs it",
    "version": "bartorch.bart_version() reports it",
    "bitmask": "converts bitmasks, which the Python API does not use",
    "crop": "bartorch.resize covers it",
    "delta": "an identity tensor, which torch.eye makes",
    "denoise": "an optim solver over an identity operator solves the same problem",
    "nufftbase": (
        "the Fourier transform of a gridding basis function, which is BART's own "
        "gridder's to use and nothing here reaches"
    ),
}


def curated_wrappers() -> dict[str, list]:
    """Every hand-written wrapper, grouped by the BART command it runs."""
    found: dict[str, list] = {}
    for name in CURATED_MODULES:
        module = import_module(name)
        for attr in getattr(module, "__all__", ()):
            wrapper = getattr(module, attr)
            if getattr(wrapper, "is_derived", True):
                continue
            for command in getattr(wrapper, "bart_commands", ()):
                found.setdefault(command, []).append(wrapper)
    return found


def curated_names() -> frozenset[str]:
    return frozenset(curated_wrappers())


def derived_names() -> frozenset[str]:
    return frozenset(
        name for module in TOOLS_MODULES for name in getattr(import_module(module), "_DERIVED", ())
    )


# Checked here rather than in a test, so that a module cannot name a command
# twice without the import failing.
assert frozenset(PRIVATE) <= frozenset(COMMANDS), sorted(frozenset(PRIVATE) - frozenset(COMMANDS))
