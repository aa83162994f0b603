"""Which tolerance a recorded value is held to. Torch-free: keyed on dtype names.

Defaults are ``torch.testing.assert_close``'s per-dtype (rtol, atol) (torch/testing/_comparison.py),
applied in the tensor's own scale: elementwise ``|actual − expected| ≤ atol + rtol·(|expected| +
RMS(reference))``. assert_close's rule alone (``atol + rtol·|expected|``) holds an element near zero
in a tensor of logits ~10 to 1e-5 absolute, while a reordered reduction (split-K, another thread
count) moves it by a few ULP *of the values summed*: benign changes failed at realistic scale. The
RMS term allows rtol of the tensor's typical magnitude everywhere, which still catches real changes
(an activation swapped or an epsilon changed moves values by far more). Integer and bool values
must match exactly.

A value whose dtype differs from the recorded one (a bf16/fp16 target of an fp32 recording, or
autocast) is compared in float64 with the *less precise* dtype's tolerance, and the cast is named;
a value computed from values that needed a looser tolerance (an override, a cast) inherits it, so
an override applies where the difference lands as well as where it is born.

Overrides are globs on the module path or tap name (``{"*.attn": (1e-2, 1e-3)}``), matched with
fnmatch; the most specific (longest) matching pattern wins, and ``"*"`` sets a default for
everything.

The fp64-golden gate (``torch._dynamo.utils.same``, torchtitan's numerics verifier): a value that
fails the elementwise test still passes when its RMSE against the float64 golden is no more than
k× the reference's own RMSE against it (+ atol/10), k = 2 for float32/float64 and 3 for the
16-bit floats.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase

Tolerance = tuple[float, float]
"""(rtol, atol)."""

DEFAULTS: dict[str, Tolerance] = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex32": (1e-3, 1e-5),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}
"""torch.testing.assert_close's defaults; any other dtype compares exactly."""

GOLDEN_FACTOR = {"float16": 3.0, "bfloat16": 3.0}
"""k of the golden gate per dtype; 2 otherwise."""


EPS = {"float64": 2.2e-16, "float32": 1.2e-7, "float16": 9.8e-4, "bfloat16": 7.8e-3}
"""Machine epsilon per floating dtype: which of two dtypes is the less precise."""


def lower_precision(first: str, second: str) -> str | None:
    """The less precise of two floating dtypes (None: either is not a float this module knows)."""
    if first not in EPS or second not in EPS:
        return None
    return first if EPS[first] >= EPS[second] else second


def looser(first: Tolerance, second: Tolerance) -> Tolerance:
    return (max(first[0], second[0]), max(first[1], second[1]))


def default_tolerance(dtype: str) -> Tolerance:
    return DEFAULTS.get(dtype, (0.0, 0.0))


def golden_factor(dtype: str) -> float:
    return GOLDEN_FACTOR.get(dtype, 2.0)


def resolve(name: str, dtype: str, overrides: Mapping[str, Tolerance] | None) -> tuple[Tolerance, str]:
    """The (rtol, atol) for a value of ``name`` (module path or ``tap:name``), and where it came from."""
    if overrides:
        matching = [pattern for pattern in overrides if fnmatchcase(name, pattern)]
        if matching:
            best = max(matching, key=len)
            rtol, atol = overrides[best]
            return (float(rtol), float(atol)), f"override {best!r}"
    return default_tolerance(dtype), f"{dtype} default"


def check_overrides(overrides: Mapping[str, object] | None) -> dict[str, Tolerance]:
    """Validate user-given overrides: each a (rtol, atol) pair of non-negative numbers.

    Raises:
        ValueError: a malformed entry.
    """
    result: dict[str, Tolerance] = {}
    for pattern, value in (overrides or {}).items():
        if (
            not isinstance(value, (tuple, list))
            or len(value) != 2
            or not all(isinstance(v, (int, float)) and v >= 0 for v in value)
        ):
            raise ValueError(f"tolerances[{pattern!r}] must be (rtol, atol), two non-negative numbers")
        result[str(pattern)] = (float(value[0]), float(value[1]))
    return result
