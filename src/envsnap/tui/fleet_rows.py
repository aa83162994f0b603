"""What the Fleet tab shows, as plain data: one row per node, one line per group (no Textual here).

The fleet folder is read and grouped in the app's file worker (documents.load_document); this
module only turns the result into cell text, so it is cheap enough for the UI thread and easy to
test. Every string from the folder passes ``one_line`` (terminal control characters escaped).
"""

from __future__ import annotations

from envsnap.documents import FleetDocument
from envsnap.rules.base import SEVERITY_RANK
from envsnap.snapshot.model import Finding, Snapshot
from envsnap.snapshot.safe_text import one_line

NODE_COLUMNS = ("node", "status", "group", "GPUs", "driver", "torch", "worst finding")


def group_label(index: int | None) -> str:
    if index is None:
        return "–"
    return "majority" if index == 0 else f"group {index + 1}"


def gpus(snapshot: Snapshot) -> str:
    """``8× NVIDIA A100-SXM4-80GB`` (the first model; ``+`` when models are mixed)."""
    accelerators = snapshot.accelerators
    names: list[str] = []
    if accelerators is not None:
        for vendor in (accelerators.nvidia, accelerators.amd):
            if vendor is not None:
                names += [d.name or "?" for d in vendor.devices or ()]
    if not names:
        return "none"
    mixed = "+" if len(set(names)) > 1 else ""
    return f"{len(names)}× {one_line(names[0])}{mixed}"


def driver(snapshot: Snapshot) -> str:
    accelerators = snapshot.accelerators
    if accelerators is None:
        return "–"
    for vendor in (accelerators.nvidia, accelerators.amd):
        if vendor is not None and vendor.driver_version:
            return one_line(vendor.driver_version)
    return "–"


def torch(snapshot: Snapshot) -> str:
    frameworks = snapshot.frameworks
    if frameworks is None or frameworks.torch is None or not frameworks.torch.version:
        return "–"
    return one_line(frameworks.torch.version)


def worst_finding(findings: tuple[Finding, ...]) -> str:
    if not findings:
        return "none"
    worst = min(findings, key=lambda f: SEVERITY_RANK.get(f.severity, 9))
    return f"{worst.severity}: {one_line(worst.title)}"


def node_rows(document: FleetDocument) -> list[tuple[str, ...]]:
    """One row of NODE_COLUMNS per node, in the folder's order."""
    groups = document.groups
    rows: list[tuple[str, ...]] = []
    for node in document.loaded.nodes:
        snapshot = node.snapshot
        if snapshot is None:
            reason = one_line(node.record.reason or "")
            rows.append((one_line(node.name), node.record.status, "–", "–", "–", "–", reason))
            continue
        index = groups.node_group.get(node.name)
        findings = groups.groups[index].findings if index is not None else ()
        rows.append(
            (
                one_line(node.name),
                "ok",
                group_label(index),
                gpus(snapshot),
                driver(snapshot),
                torch(snapshot),
                worst_finding(findings),
            )
        )
    return rows


def group_lines(document: FleetDocument) -> list[str]:
    """``majority · sha256:… · 3 nodes: n1, n2, n4`` per group, then the nodes not collected."""
    from envsnap.render.fleet import names

    lines = []
    for i, group in enumerate(document.groups.groups):
        impact = f" [{group.impact}, {len(group.changes)} differences]" if group.impact else ""
        fingerprint = one_line(group.fingerprint)[:19]
        lines.append(
            f"{group_label(i)} · {fingerprint}… · {len(group.nodes)} node(s): {names(group.nodes)}{impact}"
        )
    if document.groups.failed:
        lines.append(f"not collected: {names([r.name for r in document.groups.failed])}")
    return lines
