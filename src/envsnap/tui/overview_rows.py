"""The Overview's rows: one per layer of the stack, each with a badge, a summary and a reason.

Pure functions of the model (no Textual), so the logic that decides "is this layer healthy?" is
unit-tested apart from the widgets. A layer's badge starts from its section status (ok, skipped =
not present, failed = error) and is raised by findings whose evidence points into that layer:
the rules know more than the probe about what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from envsnap.snapshot.model import Change, Finding, ProbeRun, Section, Snapshot


Badge = Literal["ok", "warning", "error", "absent", "loading"]

_RANK: dict[Badge, int] = {"loading": 0, "absent": 1, "ok": 2, "warning": 3, "error": 4}


@dataclass(frozen=True)
class LayerRow:
    """One line of the Overview."""

    key: str
    """Stable id of the layer (also the DOM id suffix): ``host``, ``nvidia``, ``torch``, ..."""
    label: str
    badge: Badge
    summary: str
    """What the layer is, e.g. "NVIDIA driver 535.54.03 · CUDA ≤ 12.2 · 1 GPU"."""
    reason: str | None = None
    """Why the badge is not ok: the section's reason or the worst finding's title."""


@dataclass(frozen=True)
class _Layer:
    key: str
    label: str
    probe: str
    """The collector.py probe that fills this layer (for loading states)."""


LAYERS = (
    _Layer("host", "Host", "host"),
    _Layer("python", "Python", "python"),
    _Layer("nvidia", "NVIDIA", "nvidia"),
    _Layer("amd", "AMD", "amd"),
    _Layer("intel", "Intel GPU", "intel"),
    _Layer("mps", "Apple MPS", "mps"),
    _Layer("cuda", "CUDA toolkit", "toolkits"),
    _Layer("rocm", "ROCm", "toolkits"),
    _Layer("torch", "PyTorch", "frameworks"),
    _Layer("frameworks", "Frameworks", "frameworks"),
    _Layer("extensions", "Extensions", "extensions"),
)
"""Every row the Overview can show, in display order."""

_OPTIONAL = {"intel", "mps", "rocm", "frameworks"}
"""Rows hidden when the layer is simply not on this machine (saves lines at 80×24)."""


def layer_of_path(path: str) -> str | None:
    """Which Overview row a dotted snapshot path belongs to (``frameworks.torch.cuda`` -> ``torch``)."""
    parts = path.split(".")
    head = parts[0]
    second = parts[1] if len(parts) > 1 else ""
    if head in ("host", "extensions"):
        return head
    if head in ("python", "packages", "environment"):
        return "python"
    if head == "accelerators":
        return second.split("[")[0] or None
    if head == "toolkits":
        return "rocm" if second.startswith(("rocm", "hip")) else "cuda"
    if head == "frameworks":
        return "torch" if second.startswith("torch") else "frameworks"
    return None


def finding_layers(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Findings grouped by the rows their evidence points into (a finding may touch several)."""
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        keys = {layer_of_path(evidence.path) for evidence in finding.evidence}
        for key in sorted(k for k in keys if k is not None):
            grouped.setdefault(key, []).append(finding)
    return grouped


def _section_badge(section: Section | None) -> Badge:
    if section is None:
        return "absent"
    return {"ok": "ok", "skipped": "absent", "failed": "error"}[section.status]  # type: ignore[return-value]


def _raise(badge: Badge, reason: str | None, findings: list[Finding]) -> tuple[Badge, str | None]:
    worst: Finding | None = None
    for finding in findings:
        if finding.severity == "info":
            continue
        if worst is None or (finding.severity == "error" and worst.severity != "error"):
            worst = finding
    if worst is None:
        return badge, reason
    raised: Badge = "error" if worst.severity == "error" else "warning"
    if _RANK[raised] <= _RANK[badge]:
        return badge, reason
    return raised, worst.title


def layer_rows(
    snapshot: Snapshot | None,
    probe_runs: Mapping[str, ProbeRun] | None = None,
    partial: Snapshot | None = None,
) -> tuple[LayerRow, ...]:
    """The Overview rows for a snapshot, or loading rows filled from probe progress until it arrives.

    Args:
        snapshot: the collected or loaded snapshot; None while probes still run.
        probe_runs: finished probes by name (from collect's progress events), for the loading state.
        partial: while probes still run, the sections of those finished (``collector.partial_snapshot``):
            their rows show the layer's summary at once; findings come with the full snapshot.
    """
    if snapshot is None:
        return _loading_rows(probe_runs or {}, partial)
    by_layer = finding_layers(snapshot.findings or ())
    rows: list[LayerRow] = []
    for layer in LAYERS:
        section, summary = _describe(snapshot, layer.key)
        if layer.key in _OPTIONAL and (section is None or section.status == "skipped"):
            continue
        badge = _section_badge(section)
        reason = section.reason if section is not None else None
        badge, reason = _raise(badge, reason, by_layer.get(layer.key, []))
        rows.append(LayerRow(layer.key, layer.label, badge, summary, reason))
    return tuple(rows)


def _loading_rows(probe_runs: Mapping[str, ProbeRun], partial: Snapshot | None) -> tuple[LayerRow, ...]:
    rows: list[LayerRow] = []
    for layer in LAYERS:
        run = probe_runs.get(layer.probe)
        if run is None or partial is None:
            rows.append(_loading_row(layer, run))
            continue
        section, summary = _describe_section(partial, layer.key)
        if section is None and layer.key != "frameworks":
            rows.append(_loading_row(layer, run))  # the probe failed or timed out: its run says why
            continue
        if layer.key in _OPTIONAL and (section is None or section.status == "skipped"):
            continue
        rows.append(LayerRow(layer.key, layer.label, _section_badge(section), summary, _reason(section)))
    return tuple(rows)


def _reason(section: Section | None) -> str | None:
    return section.reason if section is not None else None


def _loading_row(layer: _Layer, run: ProbeRun | None) -> LayerRow:
    if run is None:
        return LayerRow(layer.key, layer.label, "loading", "probing…")
    badge: Badge = {"ok": "ok", "skipped": "absent", "failed": "error"}[run.status]  # type: ignore[assignment]
    return LayerRow(layer.key, layer.label, badge, f"probed in {run.duration_s:.2f} s", run.reason)


def _describe(snapshot: Snapshot, key: str) -> tuple[Section | None, str]:
    """The section behind a row and its one-line summary when it is absent: "not probed" for a
    probed machine, "not in the report" for an import (a paste that doesn't say is not a layer
    this machine lacks)."""
    section, summary = _describe_section(snapshot, key)
    if section is not None or key == "frameworks":
        return section, summary
    origin = snapshot.meta.origin
    return section, "not in the report" if origin is not None and origin.kind == "import" else "not probed"


def _describe_section(snapshot: Snapshot, key: str) -> tuple[Section | None, str]:
    from envsnap.render.summary import human_bytes, torch_build  # not needed for the first (loading) frame

    acc = snapshot.accelerators
    if key == "host":
        host = snapshot.host
        if host is None or not host.ok:
            return host, "not available"
        os_text = " ".join(x for x in (host.os_name, host.os_version) if x) or "?"
        where = [
            w for w in (host.container, "Slurm" if host.slurm else None, "WSL" if host.wsl else None) if w
        ]
        parts = [
            host.hostname or "?",
            os_text,
            f"{host.arch or '?'}",
            f"{host.cpu_logical_cores or '?'} CPUs",
        ]
        parts.append(human_bytes(host.memory_total_bytes))
        return host, " · ".join(parts + where)
    if key == "python":
        py = snapshot.python
        if py is None or not py.ok:
            return py, "not available"
        parts = [f"{py.implementation or 'Python'} {py.version or '?'}"]
        if py.env_kind:
            parts.append(f"{py.env_kind} {py.env_name or ''}".strip())
        parts.append(f"{len(snapshot.packages or ())} packages")
        return py, " · ".join(parts)
    if key == "nvidia":
        nv = acc.nvidia if acc else None
        if nv is None or not nv.ok:
            return nv, "not present"
        names = sorted({d.name or "?" for d in nv.devices or ()})
        gpus = f"{len(nv.devices or ())}× {', '.join(names)}" if names else "no GPUs"
        return nv, f"driver {nv.driver_version or '?'} · CUDA ≤ {nv.cuda_driver_version or '?'} · {gpus}"
    if key == "amd":
        amd = acc.amd if acc else None
        if amd is None or not amd.ok:
            return amd, "not present"
        names = sorted({d.name or "?" for d in amd.devices or ()})
        gpus = f"{len(amd.devices or ())}× {', '.join(names)}" if names else "no GPUs"
        return amd, f"amdgpu {amd.driver_version or '?'} · ROCm {amd.rocm_version or '?'} · {gpus}"
    if key == "intel":
        intel = acc.intel if acc else None
        return (
            intel,
            f"{len(intel.devices or ())} GPU(s)" if intel is not None and intel.ok else "not present",
        )
    if key == "mps":
        mps = acc.mps if acc else None
        if mps is None or not mps.ok:
            return mps, "not present"
        return mps, f"{mps.chip or 'Apple silicon'} · macOS {mps.macos_version or '?'}"
    if key == "cuda":
        return _cuda(snapshot)
    if key == "rocm":
        tk = snapshot.toolkits
        rocm = tk.rocm if tk else None
        hip = tk.hip if tk else None
        if rocm is None or not rocm.ok:
            return rocm, "not installed"
        return rocm, " · ".join(
            [f"ROCm {rocm.version or '?'} at {rocm.path or '?'}"]
            + ([f"HIP {hip.version}"] if hip and hip.ok else [])
        )
    if key == "torch":
        fw = snapshot.frameworks
        torch = fw.torch if fw else None
        build = torch_build(snapshot)
        return torch, build or "not installed"
    if key == "frameworks":
        return _other_frameworks(snapshot)
    ext = snapshot.extensions
    if ext is None or not ext.ok:
        return ext, "not scanned"
    names = [d.name for d in ext.distributions or ()]
    linked = f"{len(names)} link accelerator libraries" + (f": {', '.join(names[:4])}" if names else "")
    return ext, f"{ext.scanned_files or 0} compiled files · {linked}"


def _cuda(snapshot: Snapshot) -> tuple[Section | None, str]:
    tk = snapshot.toolkits
    cuda = tk.cuda if tk else None
    if cuda is None or not cuda.ok:
        return cuda, "not installed"
    parts = [f"nvcc {cuda.nvcc_version or cuda.version or '?'} at {cuda.path or '?'}"]
    for label, lib in (("cuDNN", tk.cudnn if tk else None), ("NCCL", tk.nccl if tk else None)):
        if lib is not None and lib.ok:
            parts.append(f"{label} {lib.version or '?'}")
    return cuda, " · ".join(parts)


def _other_frameworks(snapshot: Snapshot) -> tuple[Section | None, str]:
    fw = snapshot.frameworks
    if fw is None:
        return None, "none"
    found: list[tuple[str, Section]] = [
        (label, info)
        for label, info in (("JAX", fw.jax), ("TensorFlow", fw.tensorflow), ("onnxruntime", fw.onnxruntime))
        if info is not None
    ]
    if not found:
        return None, "none"
    # One failed framework makes the row an error; otherwise any working one makes it ok.
    worst = max((info for _, info in found), key=lambda s: {"skipped": 0, "ok": 1, "failed": 2}[s.status])
    text = " · ".join(f"{label} {getattr(info, 'version', None) or info.status}" for label, info in found)
    return worst, text


def _status_word(value: object) -> str | None:
    return value.split(":", 1)[0] if isinstance(value, str) else None


def working_side(change: Change) -> str | None:
    """``"new"`` for a section that started working (skipped → ok), ``"old"`` for one that stopped.

    The diff reports such a section as one change of its status (``compare.diff``); the data that
    appeared or vanished with it is not in the change, so views add the working side's summary.
    """
    if change.kind != "changed":
        return None
    old, new = _status_word(change.old), _status_word(change.new)
    if old in ("skipped", "failed") and new == "ok":
        return "new"
    if old == "ok" and new in ("skipped", "failed"):
        return "old"
    return None


def section_summary(snapshot: Snapshot, path: str) -> str | None:
    """The Overview's summary of the layer ``path`` belongs to (``driver 590.48.01 · 2× NVIDIA H100``)."""
    key = layer_of_path(path)
    return next((row.summary for row in layer_rows(snapshot) if row.key == key), None)


def working_summaries(changes: Iterable[Change], old: Snapshot, new: Snapshot) -> dict[str, str]:
    """Per changed path of a section that started or stopped working: what its working side holds."""
    summaries: dict[str, str] = {}
    for change in changes:
        side = working_side(change)
        if side is not None:
            summary = section_summary(new if side == "new" else old, change.path)
            if summary:
                summaries[change.path] = summary
    return summaries
