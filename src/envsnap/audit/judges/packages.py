"""CUDA-only packages (imported, required or installed) and the install traps: swaps from audit/data."""

from __future__ import annotations

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from envsnap.audit import knowledge
from envsnap.audit.across_files import (
    IMPORTS_GUARDED,
    NOT_INSTALLED_PIN,
    OPTIONAL_MODULE,
    STAND_IN,
    UNDECLARED,
)
from envsnap.audit.judges.base import (
    BACKEND_NAMES,
    LOWER_RISK,
    NAMES,
    Context,
    make_finding,
)
from envsnap.audit.model import (
    ADAPTER,
    ARRAY_LIBRARY,
    ARRAY_SWITCH,
    EXTRA_ONLY,
    LAZY,
    OPT_IN,
    Finding,
    Signal,
    Target,
)
from envsnap.rules import knowledge as rules_knowledge

# ---------------------------------------------------------------------------- packages


def package_finding(
    signal: Signal, target: Target, ctx: Context, rule: str, version: str | None = None
) -> Finding | None:
    """A CUDA-only package (imported, required or installed) judged for the target."""
    key = signal.facts().get("package", "")
    if key == "cuda-library-wheel":
        if target.kind == "cuda":
            return None
        _, source = knowledge.cuda_library_wheels()
        return make_finding(
            signal,
            rule,
            "An NVIDIA CUDA library wheel: the target's torch build brings its own runtime libraries.",
            "low",
            "lower",
            "drop it from the requirements",
            source,
        )
    row = next((r for r in knowledge.alternatives() if r.key == key), None)
    if row is None or target.kind == "cuda":
        return None
    swap = row.swap(target.kind)
    if swap is None:
        return None
    effort, risk, replacement = swap.effort, swap.risk, swap.replacement
    if row.framework:
        rule = rule.replace("cuda-only-", "framework-")
    minimum = (row.min_version or {}).get(target.kind)
    installed = version or signal.facts().get("pinned") or ctx.installed.get(row.key)
    meaning = f"{row.what}: CUDA-only as used here."
    if swap.meaning:
        meaning = swap.meaning  # the row says what the package means there (a framework's plugin tier)
    elif minimum and installed:
        if _at_least(installed, minimum):
            meaning = f"{row.what}: supports {NAMES[target.kind]} from {minimum}; {installed} is installed."
        else:
            meaning = f"{row.what}: {installed} predates {NAMES[target.kind]} support (from {minimum})."
            risk = "moderate" if risk == "lower" else risk
    elif swap.effort == "high":
        meaning = f"{row.what}: no build for {NAMES[target.kind]} exists."
    elif swap.risk == "lower":
        # Not a blocker: the target has its own build of the package (a swap at install time).
        meaning = f"{row.what}: the CUDA build is swapped for the {NAMES[target.kind]} one; the code stays."
    if swap.pinned_risk and signal.kind == "requirement" and signal.facts().get("pinned"):
        # spleeter 2.4 pins tensorflow 2.12.1 (Poetry): AMD's tensorflow-rocm must exist at that version,
        # and pip reads it as another distribution, so the pin is matched or lifted by hand.
        risk = swap.pinned_risk
        meaning += (
            f" The project pins {signal.subject}=={signal.facts()['pinned']}: the pin is matched or lifted."
        )
    if row.torch_based and rule.endswith("-requirement") and risk != "lower":
        # Lightning installs on every target; what needs the missing accelerator is code that trains
        # with it (InvokeAI lists pytorch-lightning without a Trainer in its device path).
        risk = "lower"
        meaning += " A requirement alone installs there: the imports that drive the Trainer decide."
    platform = _platform(target)
    if f"not-on={platform}" in signal.detail and signal.kind == "import":
        # across_files._left_out_imports: the project's own install there runs without the package.
        risk = LOWER_RISK[risk]
        meaning += (
            f" The project's requirements leave it out on {platform} (an environment marker): its install"
            f" there runs without it, so this import sits on a path {NAMES[target.kind]} does not take."
        )
    elif f"not-on={platform}" in signal.detail:
        risk = "lower"
        meaning = (
            f"{row.what}: its environment marker leaves it out where {NAMES[target.kind]} runs ({platform})."
        )
    elif _other_device_path(signal, row, target):
        risk = "lower"
        meaning = (
            f"{row.what}: the {BACKEND_NAMES[row.device_backend or '']} backend, imported inside a"
            " function or a guard: that"
            f" device's path, loaded only when it is asked for; {NAMES[target.kind]} never takes it."
        )
    elif (
        ARRAY_LIBRARY in signal.detail
        and target.kind in ("xpu", "mps")
        and not signal.guarded
        and EXTRA_ONLY not in signal.detail
        and LAZY not in signal.detail
    ):
        # scan._cupy_array_library: the package computes in CuPy and nothing else; no Intel or Apple build.
        # A module the package loads only in a guard (pymatting's CuPy foreground estimator, beside its Numba
        # one: across_files marks it optional) is one path of a NumPy package, not its array library.
        effort, risk = "high", "higher"
        meaning = (
            f"{row.what}: the package's only array library (no PyTorch, JAX or TensorFlow beside it), and no"
            f" CuPy build exists for {NAMES[target.kind]}: its array code is ported to NumPy or torch."
        )
    elif (
        signal.guarded and signal.kind == "import" and ARRAY_SWITCH in signal.detail and target.kind != "rocm"
    ):
        # prprop3d 0.3.9 (#22 stop 31): `import cupy as cp` on CUDA, `import numpy as cp` otherwise; the code
        # runs, on the host, and no line of it can reach the target's GPU (CuPy has no build there).
        meaning += (
            " The module binds the same name to NumPy otherwise: off CUDA the array code runs on the CPU, and"
            f" the {NAMES[target.kind]} GPU has no way in without a port of the switch."
        )
    elif signal.guarded and signal.kind == "import":
        risk = LOWER_RISK[risk]
        if OPT_IN in signal.detail:
            meaning += " Imported behind a switch that is off by default: the code has a path without it."
        elif OPTIONAL_MODULE in signal.detail:
            meaning += (
                " Its module is one the project imports only in a guard (try/except ImportError):"
                " an optional path, the code runs without it."
            )
        elif STAND_IN in signal.detail:
            meaning += (
                " The project registers a module of its own under this name when the package is missing"
                " (sys.modules): the import succeeds without it."
            )
        elif ADAPTER in signal.detail:
            meaning += (
                " Imported in the project's own module for that integration (named after it): it runs only"
                " for users of the integration."
            )
        else:
            meaning += " The import is guarded (try/except): the code has a path without it."
        if UNDECLARED in signal.detail:
            # Nor does the project install it (across_files._undeclared_guarded_imports): an opt-in.
            risk = LOWER_RISK[risk]
            meaning += " The project's requirements do not name it: an opt-in the user installs."
    elif signal.kind == "import" and UNDECLARED in signal.detail:
        # Imported inside the function that uses it, and installed by nothing the project declares
        # (across_files._undeclared_guarded_imports): the module loads without it, an opt-in as if guarded.
        risk = LOWER_RISK[LOWER_RISK[risk]]
        meaning += (
            " Imported only inside the function that uses it, and the project's requirements do not name it:"
            " an opt-in the user installs."
        )
    elif IMPORTS_GUARDED in signal.detail and signal.kind == "requirement":
        if target.kind in ("xpu", "mps") and risk != "lower":
            # Depth Anything 3 requires xformers and guards its one import (#22 blind round 94): the code
            # runs without it, the install does not, as no Intel or macOS build exists (ROCm has wheels).
            # The requirement goes and the code stays: an install edit, never a port.
            risk = "moderate"
            meaning += (
                " Every import of it is guarded (try/except), so the code runs without it, but the project"
                f" requires it and no {NAMES[target.kind]} build exists: the install pulls the CUDA build or"
                " fails to build it, until the requirement becomes an extra."
            )
        else:
            risk = LOWER_RISK[risk]
            meaning += " Every import of it is guarded (try/except): the project runs without it."
    elif EXTRA_ONLY in signal.detail:
        risk = LOWER_RISK[risk]
        if signal.kind == "import":
            meaning += (
                " Declared only in an optional extra: this module is that feature's, and the project runs"
                " without it."
            )
        else:
            meaning += " An optional extra: the project installs and runs without it."
    if risk == "higher" and signal.kind == "import":
        # In a function body only (LAZY): a module-level `if flag: import x` runs at import (#22 round 34).
        if LAZY in signal.detail:
            meaning += INSIDE_FUNCTION
        elif row.device_backend not in (None, target.kind):
            meaning += f"{BINDS_MODULE}the {BACKEND_NAMES[row.device_backend or '']} device."
    return make_finding(signal, rule, meaning, effort, risk, replacement, swap.source)


INSIDE_FUNCTION = (
    " Imported inside a function, or in a module the project loads only from one: the importing module loads"
    " without it; only the code that calls in needs it."
)
"""Said of an unguarded import with no build for the target that runs only when called (LAZY: in a function
body, sglang 0.5.23's ``check_cuda_result`` importing ``cuda.bindings.runtime``, #22 blind round 33; or at the
top of a module the project imports only lazily, across_files): the module imports there."""

BINDS_MODULE = " Loaded with the module, it binds that module to "
"""Said of another accelerator's runtime imported when a module loads (optimum-habana 1.17's
``import habana_frameworks.torch.core``, #22 blind round 14): that module never imports on the target, so a
path for the target elsewhere in the project does not reach it (verdict.decide's ``unimportable``). A CUDA
ecosystem package imported so (Triton, TensorRT, cuda-python) does not bind the module to a device: in the
blind rounds such imports sat beside the project's own handling (a platform marker, a stand-in module, a
presence flag) in all seven cells where they cut a documented path."""


def _platform(target: Target) -> str:
    """Where the target runs, as ``scanners.build.left_out`` names it in ``not-on=`` marks."""
    return "macos" if target.kind == "mps" else "linux"


def _other_device_path(signal: Signal, row: knowledge.Alternative, target: Target) -> bool:
    """An import, inside a function, of another GPU's backend (PyG 2.6 profile/utils.py reads XPU memory
    through ``ipex.xpu`` in a helper; #22 blind round 10). At module level it loads on every device."""
    return (
        row.device_backend is not None
        and row.device_backend != target.kind
        and signal.kind == "import"
        and "module-level=1" not in signal.detail
    )


def _at_least(installed: str, minimum: str) -> bool:
    try:
        return Version(installed) >= Version(minimum)
    except ValueError:  # InvalidVersion, or a number past int()'s digit limit
        return False


def judge_import(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    return package_finding(signal, target, ctx, "cuda-only-import")


def judge_requirement(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    return package_finding(signal, target, ctx, "cuda-only-requirement")


def judge_apex_pip(signal: Signal, target: Target, ctx: Context) -> Finding:
    _, source = knowledge.apex_trap()
    fork = "ROCm/apex" if target.kind == "rocm" else "NVIDIA/apex"
    return make_finding(
        signal,
        "pip-install-apex",
        "`pip install apex` installs an unrelated PyPI package of that name, not NVIDIA Apex.",
        "low",
        "moderate",
        f"build {fork} from source (`pip install --no-build-isolation git+https://github.com/{fork}`)",
        source,
    )


def judge_extra_index(signal: Signal, target: Target, ctx: Context) -> Finding:
    return make_finding(
        signal,
        "extra-index-url",
        "With --extra-index-url pip may pick the newer CUDA wheel from PyPI instead of the one on "
        "this index.",
        "low",
        "moderate",
        "`--index-url` (the PyTorch index only) for torch and its companions",
        knowledge.source("extra_index_trap"),
    )


def judge_cuda_index(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    if target.kind == "cuda":
        return None
    return make_finding(
        signal,
        "cuda-wheel-index",
        f"Installs the {signal.subject} (CUDA) builds of torch.",
        "low",
        "moderate",
        f"the {NAMES[target.kind]} index (see the framework finding for the exact command)",
        knowledge.source("cuda"),
    )


def judge_torch_pin(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    """A torch requirement with an upper bound: does the newest torch it allows have builds for the target?

    huggingsound 0.1.6 (#22 blind round 7) pins ``torch>=1.7,!=1.12.0,<1.13.0``: torch 1.12's ROCm 5.1.1
    wheels have no gfx942 code objects and XPU wheels start at torch 2.5, so the project installs a torch
    that cannot use the GPU until the pin is lifted (an edit, then the usual API drift of the newer torch).
    """
    if target.kind in ("cuda", "cpu") or NOT_INSTALLED_PIN in signal.detail:
        return None
    if f"not-on={_platform(target)}" in signal.detail:
        return None  # a pin for another platform (its marker): pip installs another torch here
    try:
        specifier = SpecifierSet(signal.facts().get("spec", ""))
    except InvalidSpecifier:
        return None
    companion = signal.facts().get("companion")
    if companion is None:
        torches = {row.torch for row in rules_knowledge.torch_releases() if _allows(specifier, row.torch)}
        capped = signal.subject
    else:
        # torchvision 0.19 is built against torch 2.4: capping it caps torch (the companions table).
        torches = {
            pair.torch
            for pair in rules_knowledge.companions().pairs
            if (version := getattr(pair, companion, None)) is not None and _allows(specifier, version)
        }
        capped = f"{signal.subject}: each of its releases is built for one torch release"
    allowed = [row for row in rules_knowledge.torch_releases() if row.torch in torches]
    if not allowed:
        return None
    newest = max(allowed, key=lambda row: Version(row.torch))
    problem, source = _pin_problem(newest, target)
    if problem is None:
        return None
    return make_finding(
        signal,
        "torch-pin",
        f"torch is capped ({capped}): the newest torch allowed, {newest.torch}, {problem}.",
        "medium",
        "moderate",
        "lift the torch pin to a release with the target's builds (and test the newer torch's API changes)",
        source,
    )


def _allows(specifier: SpecifierSet, minor: str) -> bool:
    """Whether any patch release of ``minor`` (2.1 -> 2.1.0 ... 2.1.9) satisfies the requirement."""
    return any(specifier.contains(f"{minor}.{patch}", prereleases=False) for patch in range(10))


def _pin_problem(newest: rules_knowledge.TorchRelease, target: Target) -> tuple[str | None, str | None]:
    release = Version(newest.torch)
    if target.kind != "rocm":
        row = knowledge.wheel(target.kind)
        first = Version(str(row["first_torch"]))
        if release < first:
            return f"predates {NAMES[target.kind]} wheels (from torch {first})", str(row["source"])
        return None, None
    if newest.rocm is None:
        return "has no ROCm wheels", newest.source
    wheel = Version(newest.rocm)
    listed = next(
        (r for r in rules_knowledge.rocm_arch_lists() if SpecifierSet(r.rocm).contains(wheel)), None
    )
    missing = [gfx for gfx in target.archs if listed is not None and gfx not in listed.list.split(";")]
    if missing:
        return (
            f"publishes ROCm {newest.rocm} wheels without code objects for {', '.join(missing)}",
            listed.source if listed else newest.source,
        )
    return None, None
