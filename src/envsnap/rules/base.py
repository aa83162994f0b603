"""The rule type, the registry, and the small helpers every rule module shares.

A rule is a pure function ``Snapshot -> Iterable[Finding]`` registered with the ids it may emit.
Rules never probe: everything they know comes from the snapshot and the knowledge tables in
``rules/data``. Keeping the registry here (and the import list in ``rules/__init__``) means a new
rule is one decorated function in the module of its concern.

Evidence paths are dotted paths into the snapshot. Items of a list are written with their natural
key: devices by index (``accelerators.nvidia.devices[0].compute_capability``), packages by name
(``packages[torch].version``), environment variables by name
(``environment.variables.CUDA_VISIBLE_DEVICES``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from envsnap.snapshot.model import Evidence, Finding, Severity, Snapshot

RuleFunc = Callable[[Snapshot], Iterable[Finding]]

SEVERITY_RANK: dict[str, int] = {"error": 0, "warning": 1, "info": 2}
"""Lower is more severe; ``--fail-on`` compares with it."""


@dataclass(frozen=True)
class Rule:
    """A registered rule: the ids it may emit and the function that checks a snapshot."""

    ids: tuple[str, ...]
    func: RuleFunc

    @property
    def name(self) -> str:
        """``module.function``, for messages about the rule itself."""
        return f"{self.func.__module__.rsplit('.', 1)[-1]}.{self.func.__name__}"


REGISTRY: list[Rule] = []
"""Every rule, in registration (import) order."""


def rule(*ids: str) -> Callable[[RuleFunc], RuleFunc]:
    """Register a rule function that emits findings with the given ids."""

    def register(func: RuleFunc) -> RuleFunc:
        REGISTRY.append(Rule(ids=ids, func=func))
        return func

    return register


def ev(path: str, value: Any) -> Evidence:
    """One piece of evidence: a snapshot path and the value found there."""
    return Evidence(path=path, value=value)


def finding(
    id: str,  # noqa: A002 - the model's field name
    severity: Severity,
    title: str,
    fix: str,
    source: str | None,
    evidence: Iterable[Evidence] = (),
) -> Finding:
    """Build a Finding (keyword order mirrors how rules read: what, how bad, why, how to fix)."""
    return Finding(id=id, severity=severity, title=title, evidence=tuple(evidence), fix=fix, source=source)


def worst(severities: Iterable[Severity]) -> Severity:
    """The most severe of several severities (``info`` when there are none)."""
    ranked = sorted(severities, key=lambda s: SEVERITY_RANK[s])
    return ranked[0] if ranked else "info"


def version(text: str | None) -> Version | None:
    """A PEP 440 version, or None when absent or unparsable (snapshots may hold odd strings)."""
    if not text:
        return None
    try:
        return Version(text.strip())
    except ValueError:  # InvalidVersion, or a number past int()'s digit limit
        return None


def major_minor(text: str | None) -> tuple[int, int] | None:
    """``"12.4"`` / ``"12.4.1"`` / ``"13"`` -> ``(12, 4)`` / ``(12, 4)`` / ``(13, 0)``; None if unparsable."""
    parsed = version(text)
    if parsed is None:
        return None
    release = (*parsed.release, 0)
    return release[0], release[1]
