"""The roll-up: what blocks the migration, by component and by kind, before the details.

A 3,000-file project gives thousands of findings; a reader needs the few components (folders,
extension targets) and kinds of blocker (inline PTX, CUDA-only package, hard-coded device) that
set the verdict, each with a count and one example place. Findings that need no change are left
out; the order is most severe first, then most frequent.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from envsnap.audit.model import EFFORTS, RISKS, Finding, RollUp, RollUpRow

NATIVE_ROOTS = frozenset({"src", "csrc", "lib", "libs", "include", "source", "sources", "pkg", "packages"})


def component(location: str, layer: str) -> str:
    """The component a finding belongs to: its top folder (two levels under src/csrc/lib), or its layer."""
    if layer in ("framework", "packages", "extensions") or (":" not in location and "/" not in location):
        return layer if layer != "source" else "(project root)"
    path = location.split(":", 1)[0]
    parts = path.split("/")
    if len(parts) == 1:
        return "(project root)"
    if parts[0].lower() in NATIVE_ROOTS and len(parts) > 2:
        return f"{parts[0]}/{parts[1]}/"
    return f"{parts[0]}/"


def _rows(groups: dict[str, list[Finding]], top: int) -> tuple[RollUpRow, ...]:
    def key(item: tuple[str, list[Finding]]) -> tuple[int, int, int, str]:
        worst = max(item[1], key=lambda f: (RISKS.index(f.risk), EFFORTS.index(f.effort)))
        return (
            -RISKS.index(worst.risk),
            -EFFORTS.index(worst.effort),
            -sum(f.count for f in item[1]),
            item[0],
        )

    rows = []
    for name, items in sorted(groups.items(), key=key)[:top]:
        worst = sorted(items, key=lambda f: (-RISKS.index(f.risk), -EFFORTS.index(f.effort)))[0]
        rows.append(
            RollUpRow(
                name=name,
                count=sum(f.count for f in items),
                risk=worst.risk,
                example=worst.location,
                rule=worst.rule,
            )
        )
    return tuple(rows)


def roll_up(findings: Iterable[Finding], *, top: int = 10) -> RollUp:
    """The top ``top`` components and blocker kinds among the findings that need a change."""
    by_component: dict[str, list[Finding]] = defaultdict(list)
    by_kind: dict[str, list[Finding]] = defaultdict(list)
    changing: Sequence[Finding] = [f for f in findings if f.effort != "none" or f.risk != "lower"]
    for item in changing:
        by_component[component(item.location, item.layer)].append(item)
        by_kind[item.rule].append(item)
    return RollUp(
        components=_rows(by_component, top),
        blockers=_rows(by_kind, top),
        more_components=max(0, len(by_component) - top),
        more_blockers=max(0, len(by_kind) - top),
    )
