"""Import the text ``nvidia-smi`` prints: the default table, ``nvidia-smi -q`` and ``nvidia-smi -L``.

The default table is the most pasted GPU text there is. Its header names the driver and the newest
CUDA the driver supports ("CUDA Version", not an installed toolkit); each GPU row gives index, name
(cut to fit the column, "NVIDIA GeForce RTX 2080 ..."), persistence mode or the Windows driver
model, bus id, and memory. The "MIG devices" and "Processes" tables below it are not GPUs.
``-q`` is the same facts as ``Key : value`` lines under a ``GPU <bus id>`` heading (grounded in the
captures of ../shared/fixtures/nvidia-smi/captures). Usage figures are telemetry, not read here.
"""

from __future__ import annotations

import re

import msgspec

from envsnap.importers.base import ImportedSections
from envsnap.snapshot.model import Accelerators, MigInstance, NvidiaDevice, NvidiaInfo

TABLE_HEADER = re.compile(
    r"NVIDIA-SMI\s+(?P<smi>[\d.]+)\s+(?:Driver|KMD) Version:\s*(?P<driver>[\d.]+)"
    r"(?:\s+CUDA (?:UMD )?Version:\s*(?P<cuda>[\d.]+|N/A))?",
    re.IGNORECASE,
)
_GPU_ROW = re.compile(
    r"^\|\s*(?P<index>\d+)\s+(?P<name>.+?)\s+(?P<mode>On|Off|WDDM|TCC|MCDM)\s*\|"
    r"\s*(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s+\S+\s*\|"
    r"\s*(?P<ecc>[^|]*)\|"
)
_MEMORY = re.compile(r"(?P<used>\d+)\s*MiB\s*/\s*(?P<total>\d+)\s*MiB")
MIG_TABLE = re.compile(r"^\|\s*MIG devices:\s*\|", re.MULTILINE)
_MIG_ROW = re.compile(r"^\|\s*(?P<gpu>\d+)\s+(?P<gi>\d+)\s+(?P<ci>\d+)\s+(?P<mig>\d+)\s*\|")
QUERY_HEADER = re.compile(r"^=+\s*NVSMI LOG\s*=+$", re.MULTILINE)
_QUERY_GPU = re.compile(r"^GPU (?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$")
LIST_LINE = re.compile(r"^GPU (?P<index>\d+): (?P<name>.+?) \(UUID: (?P<uuid>GPU-[0-9a-fA-F-]+)\)\s*$")
_LIST_MIG = re.compile(r"^\s+MIG (?P<profile>\S+)\s+Device\s+\d+: \(UUID: (?P<uuid>MIG-[^)]+)\)")
MIB = 1024 * 1024


def _key_value(line: str) -> tuple[int, str, str] | None:
    """``    Key : value`` as (indent, key, value); None for a heading. str methods, not a regular
    expression: a pattern with a lazy key before ``\\s*:`` was cubic on a long blank run."""
    key, colon, value = line.partition(":")
    if not colon or not key.strip():
        return None
    return len(key) - len(key.lstrip()), key.strip(), value.strip()


def _bus(text: str) -> str:
    """``00000000:0C:00.0`` -> ``0000:0C:00.0`` (the model's domain:bus:device.function form)."""
    domain, rest = text.split(":", 1)
    return f"{domain[-4:]}:{rest}".upper()


def parse_table(lines: list[str]) -> ImportedSections | None:
    """The default ``nvidia-smi`` table: driver, CUDA ceiling and one device per GPU row."""
    info: dict[str, str | None] = {}
    devices: list[NvidiaDevice] = []
    slices: dict[int, list[MigInstance]] = {}
    for position, line in enumerate(lines):
        header = TABLE_HEADER.search(line)
        if header and info:
            break  # a second table (a later run of nvidia-smi): the first one stands
        if header:
            info = {"driver": header.group("driver"), "cuda": header.group("cuda")}
            continue
        mig = _MIG_ROW.match(line.strip())
        if mig:
            instance = MigInstance(
                gpu_instance_id=int(mig.group("gi")), compute_instance_id=int(mig.group("ci"))
            )
            slices.setdefault(int(mig.group("gpu")), []).append(instance)
            continue
        row = _GPU_ROW.match(line.strip())
        if row is None:
            continue
        name = row.group("name").strip().removesuffix("...").strip()
        mode = row.group("mode")
        memory = _MEMORY.search(lines[position + 1]) if position + 1 < len(lines) else None
        mig_line = lines[position + 2] if position + 2 < len(lines) else ""
        devices.append(
            NvidiaDevice(
                index=int(row.group("index")),
                name=name,
                pci_bus_id=_bus(row.group("bus")),
                driver_model=mode if mode in ("WDDM", "TCC", "MCDM") else None,
                memory_total_bytes=int(memory.group("total")) * MIB if memory else None,
                mig_enabled=True if "Enabled" in mig_line.split("|")[-2:][0] else None,
            )
        )
    devices = _with_slices(devices, slices)
    if not info and not devices:
        return None
    cuda = info.get("cuda")
    nvidia = NvidiaInfo(
        status="ok",
        source="import",
        driver_version=info.get("driver"),
        cuda_driver_version=cuda if cuda and cuda != "N/A" else None,
        devices=tuple(devices) or None,
    )
    return ImportedSections(accelerators=Accelerators(nvidia=nvidia))


def _with_slices(devices: list[NvidiaDevice], slices: dict[int, list[MigInstance]]) -> list[NvidiaDevice]:
    """The MIG table's rows under their GPUs (a GPU only the MIG table names is still one GPU)."""
    by_index = {device.index: device for device in devices}
    for index, instances in slices.items():
        device = by_index.get(index, NvidiaDevice(index=index))
        by_index[index] = msgspec.structs.replace(device, mig_enabled=True, mig_instances=tuple(instances))
    return [by_index[index] for index in sorted(by_index)]


def parse_query(lines: list[str]) -> ImportedSections | None:
    """``nvidia-smi -q`` text: driver, CUDA ceiling and per-GPU static facts."""
    top: dict[str, str] = {}
    devices: list[dict[str, object]] = []
    parents: list[tuple[int, str]] = []
    for line in lines:
        if QUERY_HEADER.match(line.strip()):
            break  # a second `nvidia-smi -q` run pasted below the first: the first one stands
        gpu = _QUERY_GPU.match(line.strip())
        if gpu:
            devices.append({"pci_bus_id": _bus(gpu.group("bus")), "mig": 0})
            parents = []
            continue
        match = _key_value(line)
        if match is None:
            heading = line.rstrip()
            if heading.strip():
                indent = len(heading) - len(heading.lstrip())
                parents = [(i, k) for i, k in parents if i < indent] + [(indent, heading.strip())]
                if heading.strip() == "MIG Device" and devices:
                    devices[-1]["mig"] = int(str(devices[-1]["mig"])) + 1
            continue
        indent, key, value = match
        parents = [(i, k) for i, k in parents if i < indent]
        parent = parents[-1][1] if parents else ""
        if not devices:
            top.setdefault(key, value)
            continue
        _query_field(devices[-1], parent, key, value)
    if not top.get("Driver Version") and not devices:
        return None
    nvidia = NvidiaInfo(
        status="ok",
        source="import",
        # Drivers from 610 print "KMD Version" / "CUDA UMD Version" and mark the old keys deprecated.
        driver_version=_first(top.get("KMD Version") or top.get("Driver Version")),
        cuda_driver_version=_cuda(_first(top.get("CUDA UMD Version") or top.get("CUDA Version"))),
        devices=tuple(_query_device(position, fields) for position, fields in enumerate(devices)) or None,
    )
    return ImportedSections(accelerators=Accelerators(nvidia=nvidia))


def _first(value: str | None) -> str | None:
    """``610.57.04 [Deprecated; ...]`` -> ``610.57.04``."""
    return value.split()[0] if value and value.split() else None


def _cuda(value: str | None) -> str | None:
    return value if value and re.match(r"^\d+\.\d+$", value) else None


def _query_field(device: dict[str, object], parent: str, key: str, value: str) -> None:
    if key == "Product Name":
        device.setdefault("name", value)
    elif key == "Product Architecture":
        device.setdefault("architecture", value)
    elif parent == "FB Memory Usage" and key == "Total":
        number = re.match(r"^(\d+)\s*MiB$", value)
        if number:
            device.setdefault("memory_total_bytes", int(number.group(1)) * MIB)
    elif parent == "MIG Mode" and key == "Current":
        device.setdefault("mig_enabled", value == "Enabled")
    elif parent == "Driver Model" and key == "Current" and value in ("WDDM", "TCC", "MCDM"):
        device.setdefault("driver_model", value)
    elif key == "Persistence Mode" and value in ("Enabled", "Disabled"):
        device.setdefault("persistence_mode", value == "Enabled")
    elif key == "VBIOS Version":
        device.setdefault("vbios_version", value)


def _query_device(position: int, fields: dict[str, object]) -> NvidiaDevice:
    mig = int(str(fields.pop("mig", 0)))
    device = msgspec.convert({"index": position, **fields}, NvidiaDevice)
    if mig:
        device = msgspec.structs.replace(device, mig_instances=tuple(MigInstance() for _ in range(mig)))
    return device


def parse_list(lines: list[str]) -> ImportedSections | None:
    """``nvidia-smi -L``: names and UUIDs, MIG slices under their GPU."""
    devices: list[NvidiaDevice] = []
    for line in lines:
        gpu = LIST_LINE.match(line.strip())
        if gpu:
            devices.append(
                NvidiaDevice(index=int(gpu.group("index")), name=gpu.group("name"), uuid=gpu.group("uuid"))
            )
            continue
        mig = _LIST_MIG.match(line)
        if mig and devices:
            parent = devices[-1]
            slices = (
                *(parent.mig_instances or ()),
                MigInstance(profile=mig.group("profile"), uuid=mig.group("uuid")),
            )
            devices[-1] = msgspec.structs.replace(parent, mig_enabled=True, mig_instances=slices)
    if not devices:
        return None
    return ImportedSections(
        accelerators=Accelerators(nvidia=NvidiaInfo(status="ok", source="import", devices=tuple(devices)))
    )
