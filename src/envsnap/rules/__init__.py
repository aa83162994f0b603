"""The rules engine: every check of a snapshot, as pure functions over the model.

``evaluate(snapshot)`` runs each registered rule (one module per concern, imported below) and
returns their findings, errors first. Rules only read the snapshot and the sourced knowledge base
in ``rules/data``; they never probe, so checking a file from another machine gives the same answer
as checking that machine. A rule that crashes on an unexpected snapshot becomes one
``rule-crashed`` finding naming it, instead of hiding every other finding.
"""

from __future__ import annotations

# Importing a rule module registers its rules; the order here is the order findings of equal
# severity and id are produced in.
from envsnap.rules import (  # noqa: F401
    arch,
    build,
    driver,
    env_vars,
    health,
    jax,
    libraries,
    observed,
    onnxruntime,
    packages,
    reported,
    rocm,
    toolkit,
    wheels,
)
from envsnap.rules.base import REGISTRY, Rule, finding
from envsnap.snapshot.model import Finding, Snapshot
from envsnap.snapshot.normalize import finding_key

__all__ = ["RULE_IDS", "evaluate", "rules"]

CRASH_ID = "rule-crashed"


def rules() -> tuple[Rule, ...]:
    """Every registered rule."""
    return tuple(REGISTRY)


RULE_IDS: tuple[str, ...] = tuple(dict.fromkeys(i for r in REGISTRY for i in r.ids))
"""Every finding id the rules can emit (besides ``rule-crashed``), in registration order."""


def evaluate(snapshot: Snapshot) -> tuple[Finding, ...]:
    """Run every rule on ``snapshot``; findings sorted errors first, then by id."""
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
    return tuple(sorted(observed.gate(snapshot, findings), key=finding_key))
