"""Human summaries of a snapshot: the ``show`` report and the one-line ``save`` summary.

Both read only the model. Absent layers are said plainly ("NVIDIA: not present: libnvidia-ml.so.1
not found"), because on a migration the missing layer is usually the story.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from envsnap.snapshot.model import Section, Snapshot
from envsnap.snapshot.safe_text import printable

_STATUS_STYLE = {"ok": "green", "skipped": "dim", "failed": "red"}
_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def human_bytes(value: int | None) -> str:
    """``85899345920`` -> ``80.0 GiB``."""
    if value is None:
        return "?"
    size = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TiB"


def torch_build(snapshot: Snapshot) -> str | None:
    """``torch 2.13.0+cpu (CPU build)`` or ``torch 2.4.1+cu124 (CUDA 12.4)``."""
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    if torch is None or not torch.ok or torch.version is None:
        return None
    if torch.cuda:
        kind = f"CUDA {torch.cuda}"
    elif torch.hip:
        kind = f"ROCm/HIP {torch.hip}"
    elif torch.xpu:
        kind = f"XPU {torch.xpu}"
    else:
        kind = "CPU build"
    return f"torch {torch.version} ({kind})"


def _gpu_line(snapshot: Snapshot) -> str:
    acc = snapshot.accelerators
    parts: list[str] = []
    if acc is not None:
        for vendor, info in (("NVIDIA", acc.nvidia), ("AMD", acc.amd), ("Intel", acc.intel)):
            devices = getattr(info, "devices", None) if info is not None else None
            if devices:
                names = sorted({_without_vendor(d.name or "?", vendor) for d in devices})
                parts.append(f"{len(devices)}× {vendor} {', '.join(names)}")
        if acc.mps is not None and acc.mps.available:
            parts.append(f"Apple MPS ({acc.mps.chip or 'Apple silicon'})")
    return "; ".join(parts) if parts else "no GPU"


def _without_vendor(name: str, vendor: str) -> str:
    """``NVIDIA H100 80GB HBM3`` -> ``H100 80GB HBM3``: the line already names the vendor once."""
    if name.casefold().startswith(vendor.casefold() + " "):
        return name[len(vendor) + 1 :]
    return name


def one_line_summary(snapshot: Snapshot) -> str:
    """What ``save`` prints on stderr: packages, framework build, GPUs, findings, fingerprint."""
    parts = [f"{len(snapshot.packages or ())} packages"]
    build = torch_build(snapshot)
    if build:
        parts.append(build)
    parts.append(_gpu_line(snapshot))
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    if nvidia is not None:
        parts.append(
            f"NVIDIA driver {nvidia.driver_version}" if nvidia.driver_version else "no NVIDIA driver"
        )
    failed = [run.name for run in (snapshot.meta.probes or ()) if run.status == "failed"]
    if failed:
        parts.append(f"failed probes: {', '.join(failed)}")
    if snapshot.findings:
        counts: dict[str, int] = {}
        for finding in snapshot.findings:
            counts[finding.severity] = counts.get(finding.severity, 0) + 1
        parts.append(", ".join(f"{n} {sev}" for sev, n in counts.items()))
    if snapshot.fingerprint:
        parts.append(snapshot.fingerprint[:19])
    return "saved: " + " · ".join(parts)


def _status(section: Section | None) -> Text:
    if section is None:
        return Text("absent", style="dim")
    text = Text(section.status, style=_STATUS_STYLE.get(section.status, ""))
    if section.reason:
        text.append(f": {printable(section.reason)}", style="dim")
    return text


def _join(*parts: object, sep: str = " · ") -> str:
    """Join the parts that are known; ``None`` and empty parts are left out, never printed."""
    return sep.join(str(part) for part in parts if part not in (None, ""))


def _labelled(label: str, value: object) -> str | None:
    return None if value in (None, "") else f"{label} {value}"


def _row(table: Table, label: str, value: Any) -> None:
    if value is None or value == "":
        return
    table.add_row(
        Text(label, style="bold"), value if isinstance(value, Text) else Text(printable(str(value)))
    )


def render_summary(snapshot: Snapshot) -> Group:
    """The ``envsnap show`` report: one table of layers, then devices and findings."""
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")  # fingerprints and paths must stay whole to be copied
    origin = snapshot.meta.origin
    source = (
        f"imported from {origin.format}: {origin.file}" if origin and origin.kind == "import" else "probed"
    )
    _row(table, "Captured", f"{snapshot.meta.captured_at} ({source})")
    host = snapshot.host
    if host is not None:
        if host.ok:
            where = [
                w for w in (host.container, "Slurm" if host.slurm else None, "WSL" if host.wsl else None) if w
            ]
            os_text = _join(host.os_name, host.os_version, sep=" ")
            _row(table, "Host", _join(host.hostname, os_text, _labelled("kernel", host.kernel), host.arch))
            cores = (
                f"{host.cpu_physical_cores or '?'}/{host.cpu_logical_cores or '?'} cores"
                if host.cpu_physical_cores or host.cpu_logical_cores
                else None
            )
            memory = human_bytes(host.memory_total_bytes) if host.memory_total_bytes else None
            _row(
                table,
                "CPU / memory",
                _join(host.cpu_model, cores, memory, f"in {', '.join(where)}" if where else None),
            )
        else:
            _row(table, "Host", _status(host))
    py = snapshot.python
    if py is not None:
        if py.ok:
            env = _join(py.env_kind, py.env_name, sep=" ") if py.env_kind else None
            _row(table, "Python", _join(_join(py.implementation, py.version, sep=" "), py.executable, env))
        else:
            _row(table, "Python", _status(py))
    if snapshot.packages is not None:
        _row(table, "Packages", f"{len(snapshot.packages)} distributions")
    acc = snapshot.accelerators
    if acc is not None:
        nvidia = acc.nvidia
        if nvidia is not None:
            if nvidia.ok:
                count = len(nvidia.devices or ())
                _row(
                    table,
                    "NVIDIA",
                    _join(
                        _labelled("driver", nvidia.driver_version),
                        _labelled("supports CUDA ≤", nvidia.cuda_driver_version),
                        f"{count} GPU" + ("" if count == 1 else "s"),
                    ),
                )
            else:
                _row(table, "NVIDIA", _status(nvidia))
        if acc.amd is not None:
            amd = acc.amd
            _row(
                table,
                "AMD",
                _join(
                    _labelled("amdgpu", amd.driver_version),
                    _labelled("ROCm", amd.rocm_version),
                    f"{len(amd.devices or ())} GPU" + ("" if len(amd.devices or ()) == 1 else "s"),
                )
                if amd.ok
                else _status(amd),
            )
        if acc.intel is not None:
            intel_count = len(acc.intel.devices or ())
            _row(
                table,
                "Intel GPU",
                f"{intel_count} GPU" + ("" if intel_count == 1 else "s")
                if acc.intel.ok
                else _status(acc.intel),
            )
        if acc.mps is not None:
            _row(table, "Apple MPS", f"available ({acc.mps.chip})" if acc.mps.available else _status(acc.mps))
    tk = snapshot.toolkits
    if tk is not None:
        if tk.cuda is not None:
            cuda = tk.cuda
            _row(
                table,
                "CUDA toolkit",
                _join(_labelled("nvcc", cuda.nvcc_version), _labelled("at", cuda.path), sep=" ")
                if cuda.ok
                else _status(cuda),
            )
        if tk.rocm is not None:
            _row(
                table,
                "ROCm",
                _join(tk.rocm.version, _labelled("at", tk.rocm.path), sep=" ")
                if tk.rocm.ok
                else _status(tk.rocm),
            )
        for label, lib in (("cuDNN", tk.cudnn), ("NCCL", tk.nccl)):
            if lib is not None and lib.ok:
                _row(table, label, _join(lib.version, _labelled("at", lib.path), sep=" "))
    fw = snapshot.frameworks
    if fw is not None:
        if fw.torch is not None:
            _row(table, "PyTorch", torch_build(snapshot) or _status(fw.torch))
        for label, info in (("JAX", fw.jax), ("TensorFlow", fw.tensorflow), ("onnxruntime", fw.onnxruntime)):
            if info is not None and info.ok:
                _row(table, label, info.version)
    ext = snapshot.extensions
    if ext is not None:
        if ext.ok:
            linked = [d.name for d in ext.distributions or ()]
            text = f"{len(linked)} distributions link CUDA/ROCm/oneAPI libraries"
            _row(table, "Extensions", text + (f": {', '.join(linked[:8])}" if linked else ""))
        else:
            _row(table, "Extensions", _status(ext))
    _row(table, "Fingerprint", snapshot.fingerprint)
    parts: list[Any] = [table]
    devices = _device_table(snapshot)
    if devices is not None:
        parts.append(devices)
    if snapshot.findings:
        findings = Table(title="Findings", title_justify="left", show_edge=False, expand=False)
        findings.add_column("severity", no_wrap=True)
        findings.add_column("id", no_wrap=True)
        findings.add_column("what")
        for finding in snapshot.findings:
            findings.add_row(
                Text(finding.severity, style=_SEVERITY_STYLE[finding.severity]),
                Text(printable(finding.id)),
                Text(printable(finding.title)),
            )
        parts.append(findings)
    return Group(*parts)


def _device_table(snapshot: Snapshot) -> Table | None:
    acc = snapshot.accelerators
    if acc is None:
        return None
    rows: list[tuple[int, str, str | None, str | None, int | None, str | None]] = []
    for device in (acc.nvidia.devices if acc.nvidia else None) or ():
        cc = device.compute_capability
        arch = f"sm_{cc.replace('.', '')}" if cc else None
        rows.append((device.index, "NVIDIA", device.name, arch, device.memory_total_bytes, device.pci_bus_id))
    for amd in (acc.amd.devices if acc.amd else None) or ():
        rows.append((amd.index, "AMD", amd.name, amd.gfx_target, amd.memory_total_bytes, amd.pci_bus_id))
    for intel in (acc.intel.devices if acc.intel else None) or ():
        rows.append(
            (intel.index, "Intel", intel.name, intel.driver, intel.memory_total_bytes, intel.pci_bus_id)
        )
    if not rows:
        return None
    table = Table(title="Devices", title_justify="left", show_edge=False)
    for column in ("#", "vendor", "name", "arch", "memory", "bus id"):
        table.add_column(column, no_wrap=True)
    for index, vendor, name, arch, memory, bus in rows:
        # Text cells: device names come from the snapshot and must not be read as Rich markup.
        cells = (str(index), vendor, name or "?", arch or "?", human_bytes(memory), bus or "?")
        table.add_row(*(Text(printable(cell)) for cell in cells))
    return table
