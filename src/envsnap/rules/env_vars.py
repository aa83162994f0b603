"""Environment variables that quietly change which GPUs (and which device) a job gets (B6.5, B6.7).

``CUDA_VISIBLE_DEVICES`` is read by the CUDA runtime, not by NVML: "nvidia-smi shows 8 GPUs, torch
sees 0" is nearly always this variable — empty, ``-1``, an index past the device count, or a UUID
of another machine. The runtime also stops at the first invalid entry, hiding every GPU after it.
ROCm has ``HIP_VISIBLE_DEVICES`` and ``ROCR_VISIBLE_DEVICES`` (and honours the CUDA one too).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from envsnap.rules import facts
from envsnap.rules.base import ev, finding, rule
from envsnap.snapshot.model import Finding, Snapshot

ID = "cuda-visible-devices-hides-gpus"
CUDA_SOURCE = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables"
ROCM_SOURCE = "https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html"
MPS_SOURCE = "https://pytorch.org/docs/stable/mps_environment_variables.html"


@dataclass(frozen=True)
class Gpu:
    """What a visibility list can name a GPU by."""

    index: int
    uuids: tuple[str, ...]


@dataclass(frozen=True)
class Visibility:
    """How the runtime reads a visibility variable against the GPUs present."""

    visible: tuple[int, ...]
    invalid: str | None
    """The first entry the runtime rejects (it ignores everything from there on)."""


def parse_visible(value: str, gpus: Sequence[Gpu]) -> Visibility:
    """Apply CUDA's rules: indices or (prefixes of) UUIDs, comma-separated, stop at the first invalid one."""
    visible: list[int] = []
    for raw in value.split(","):
        entry = raw.strip()
        match = _match(entry, gpus)
        if match is None or match in visible:
            return Visibility(tuple(visible), entry or "(empty)")
        visible.append(match)
    return Visibility(tuple(visible), None)


def _match(entry: str, gpus: Sequence[Gpu]) -> int | None:
    if not entry:
        return None
    if entry.lstrip("-").isdigit():
        index = int(entry)
        return index if 0 <= index < len(gpus) else None
    lowered = entry.lower()
    hits = [gpu.index for gpu in gpus if any(uuid.lower().startswith(lowered) for uuid in gpu.uuids)]
    return hits[0] if len(hits) == 1 else None


def _nvidia_gpus(snapshot: Snapshot) -> list[Gpu]:
    gpus = []
    for position, device in enumerate(facts.nvidia_devices(snapshot)):
        uuids = [device.uuid] if device.uuid else []
        uuids += [m.uuid for m in device.mig_instances or () if m.uuid]
        gpus.append(Gpu(index=position, uuids=tuple(uuids)))
    return gpus


def _amd_gpus(snapshot: Snapshot) -> list[Gpu]:
    return [
        Gpu(index=position, uuids=(device.uuid,) if device.uuid else ())
        for position, device in enumerate(facts.amd_devices(snapshot))
    ]


def _anonymized(snapshot: Snapshot) -> bool:
    return bool(snapshot.meta.anonymized)


@rule(ID)
def visible_devices(snapshot: Snapshot) -> Iterator[Finding]:
    """A visibility variable hides every GPU, or stops at an invalid entry, while the driver sees GPUs."""
    env = facts.variables(snapshot)
    checks = [("nvidia", "CUDA_VISIBLE_DEVICES", _nvidia_gpus(snapshot), CUDA_SOURCE)]
    amd = _amd_gpus(snapshot)
    checks += [("amd", name, amd, ROCM_SOURCE) for name in ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")]
    if not checks[0][2]:
        checks.append(("amd", "CUDA_VISIBLE_DEVICES", amd, ROCM_SOURCE))  # HIP honours it on AMD-only hosts
    for vendor, name, gpus, source in checks:
        value = env.get(name)
        if value is None or not gpus:
            continue
        uses_uuids = any(not part.strip().lstrip("-").isdigit() and part.strip() for part in value.split(","))
        if uses_uuids and _anonymized(snapshot):
            continue  # UUIDs were masked when the snapshot was anonymized: can't judge
        seen = parse_visible(value, gpus)
        if seen.invalid is None:
            continue
        evidence = [
            ev(f"environment.variables.{name}", value),
            ev(f"accelerators.{vendor}.devices", f"{len(gpus)} GPU(s)"),
        ]
        torch = facts.torch(snapshot)
        if torch is not None and torch.devices is not None:
            evidence.append(ev("frameworks.torch.devices", len(torch.devices)))
        valid = f"0–{len(gpus) - 1}" if len(gpus) > 1 else "0"
        every = ",".join(str(i) for i in range(len(gpus)))
        if not seen.visible:
            yield finding(
                ID,
                "warning",
                f"{name}={value!r} hides all {len(gpus)} GPU(s) the driver reports: frameworks see no GPU",
                f"Unset it (`unset {name}`) or list the GPUs to use, e.g. `export {name}={every}` "
                f"(valid indices {valid}).",
                source,
                evidence,
            )
        else:
            yield finding(
                ID,
                "warning",
                f"{name}={value!r}: entry {seen.invalid!r} is invalid, so only GPU(s) "
                f"{', '.join(map(str, seen.visible))} are visible and the rest of the list is ignored",
                f"Fix the list: indices {valid} or GPU UUIDs of this host, each once, comma-separated.",
                source,
                evidence,
            )


@rule("mps-cpu-fallback-enabled")
def mps_fallback(snapshot: Snapshot) -> Iterator[Finding]:
    """PYTORCH_ENABLE_MPS_FALLBACK=1: ops without MPS kernels silently run on the CPU."""
    value = facts.variables(snapshot).get("PYTORCH_ENABLE_MPS_FALLBACK")
    if value is None or value.strip() != "1":
        return
    mps = snapshot.accelerators.mps if snapshot.accelerators else None
    torch = facts.torch(snapshot)
    torch_mps = torch is not None and torch.available is not None and bool(torch.available.mps)
    if not torch_mps and not (mps is not None and mps.ok):
        return
    yield finding(
        "mps-cpu-fallback-enabled",
        "info",
        "PYTORCH_ENABLE_MPS_FALLBACK=1: operators without MPS kernels run on the CPU, "
        "warned only once per process",
        "Fine for getting code to run; to find slow ops, unset it (unsupported ops then raise "
        "NotImplementedError) "
        "or watch the run with `envsnap run`.",
        MPS_SOURCE,
        [ev("environment.variables.PYTORCH_ENABLE_MPS_FALLBACK", value)],
    )
