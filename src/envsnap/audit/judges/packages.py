"""CUDA-only packages (imported, required or installed) and the install traps: swaps from audit/data."""

from __future__ import annotations

from packaging.version import Version

from envsnap.audit import knowledge
from envsnap.audit.judges.base import (
    LOWER_RISK,
    NAMES,
    Context,
    make_finding,
)
from envsnap.audit.model import Finding, Signal, Target

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
    if row.torch_based and rule.endswith("-requirement") and risk != "lower":
        # Lightning installs on every target; what needs the missing accelerator is code that trains
        # with it (InvokeAI lists pytorch-lightning without a Trainer in its device path).
        risk = "lower"
        meaning += " A requirement alone installs there: the imports that drive the Trainer decide."
    if signal.guarded and signal.kind == "import":
        risk = LOWER_RISK[risk]
        meaning += " The import is guarded (try/except): the code has a path without it."
    elif "optional=1" in signal.detail:
        risk = LOWER_RISK[risk]
        meaning += " An optional extra: the project installs and runs without it."
    return make_finding(signal, rule, meaning, effort, risk, replacement, swap.source)


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
