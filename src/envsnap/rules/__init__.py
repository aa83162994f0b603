"""The rules engine: every check of a snapshot, as pure functions over the model.

``evaluate(snapshot)`` runs each registered rule (one module per concern, imported below) and
returns their findings, errors first. Rules only read the snapshot and the sourced knowledge base
in ``rules/data``; they never probe, so checking a file from another machine gives the same answer
as checking that machine. A rule that crashes on an unexpected snapshot becomes one
``rule-crashed`` finding naming it, instead of hiding every other finding.
"""

from __future__ import annotations

import importlib

from envsnap.rules import base
from envsnap.rules.base import Rule, finding
from envsnap.snapshot.model import Finding, Snapshot
from envsnap.snapshot.normalize import finding_key

__all__ = ["RULE_IDS", "evaluate", "rules"]

CRASH_ID = "rule-crashed"

RULE_MODULES = (
    "arch",
    "build",
    "driver",
    "env_vars",
    "health",
    "jax",
    "libraries",
    "observed",
    "onnxruntime",
    "packages",
    "reported",
    "rocm",
    "toolkit",
    "wheels",
)
"""Importing a rule module registers its rules; this order is the order findings of equal severity and
id are produced in. They are imported on first use, not with the package: ``envsnap audit`` and the
report readers use the knowledge tables (``compat``, ``facts``) alone, and the fourteen modules' patterns
cost more to compile than the audit of a cached tree."""

REGISTRY = base.REGISTRY


def _register() -> None:
    for name in RULE_MODULES:
        importlib.import_module(f"envsnap.rules.{name}")


def rules() -> tuple[Rule, ...]:
    _register()
    return tuple(REGISTRY)


def __getattr__(name: str) -> tuple[str, ...]:
    if name == "RULE_IDS":
        _register()
        # Every finding id the rules can emit (besides ``rule-crashed``), in registration order.
        return tuple(dict.fromkeys(i for r in base.REGISTRY for i in r.ids))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def evaluate(snapshot: Snapshot) -> tuple[Finding, ...]:
    """Run every rule on ``snapshot``; findings sorted errors first, then by id."""
    _register()
    findings: list[Finding] = []
    for registered in REGISTRY:
        try:
            findings.extend(registered.func(snapshot))
        except Exception as err:  # one odd value in a hand-edited snapshot must not hide the rest
            findings.append(
                finding(
                    CRASH_ID,
                    "warning",
                    f"check {registered.name} ({', '.join(registered.ids)}) could not run: "
                    f"{type(err).__name__}: {err}",
                    "The other checks ran. Please report this to the envsnap developers with the snapshot "
                    "file (envsnap save --anonymize).",
                    None,
                )
            )
    from envsnap.rules import observed

    return tuple(sorted(observed.gate(snapshot, findings), key=finding_key))
