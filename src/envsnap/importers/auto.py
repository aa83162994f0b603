"""Any pasted report in, one snapshot out: detect the sections, parse each, merge them.

Merging follows one rule: what a section says is kept, and a later section only fills what earlier
ones left unknown. Sections are taken most specific first (collect_env for the framework build,
nvidia-smi for the driver and the devices, package lists for versions), devices are matched by
index, packages by name. The messages torch printed around the report (messages.py) add their
facts last, matching devices by name. A cut-off collect_env makes the snapshot *partial*: it is
judged on what it holds, and ``meta.origin`` names what it lacks.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from envsnap._version import __version__
from envsnap.errors import BadInput
from envsnap.importers import detect, evidence, evidence_sections, log_prefix, messages, package_lists
from envsnap.importers.base import ImportedSections
from envsnap.rules import facts as rule_facts
from envsnap.rules import knowledge
from envsnap.snapshot.model import (
    SCHEMA_VERSION,
    Accelerators,
    AmdDevice,
    Frameworks,
    Meta,
    NvidiaDevice,
    Origin,
    Package,
    ReportMessage,
    Snapshot,
    TorchInfo,
)

_DEVICES = (NvidiaDevice, AmdDevice)


def _merge(a: Any, b: Any) -> Any:
    """``a`` with its unknown (None) parts filled from ``b``; device lists by index, packages by name."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, msgspec.Struct) and type(a) is type(b):
        changes = {
            name: _merge(getattr(a, name), getattr(b, name))
            for name in a.__struct_fields__
            if getattr(a, name) is None or isinstance(getattr(a, name), (msgspec.Struct, tuple))
        }
        return msgspec.structs.replace(a, **changes) if changes else a
    if isinstance(a, tuple) and a and isinstance(a[0], _DEVICES):
        by_index = {device.index: device for device in a}
        for device in b:
            by_index[device.index] = _merge(by_index.get(device.index), device)
        return tuple(by_index[index] for index in sorted(by_index))
    if isinstance(a, tuple) and a and isinstance(a[0], Package):
        names = {package.name.lower().replace("_", "-") for package in a}
        return a + tuple(p for p in b if p.name.lower().replace("_", "-") not in names)
    return a


def _merge_sections(parts: list[ImportedSections]) -> ImportedSections:
    merged = ImportedSections()
    for part in parts:
        merged = ImportedSections(
            **{name: _merge(getattr(merged, name), getattr(part, name)) for name in _FIELDS}
        )
    return merged


_FIELDS = ("host", "python", "packages", "environment", "accelerators", "toolkits", "frameworks", "telemetry")


def _torch_from_packages(merged: ImportedSections) -> ImportedSections:
    """Without collect_env, a torch wheel's local version (``2.1.0+cpu``) still states its build."""
    if merged.frameworks is not None and merged.frameworks.torch is not None:
        return merged
    torch = next((p for p in merged.packages or () if p.name.lower() == "torch"), None)
    info = package_lists.torch_of_wheel(torch.version) if torch is not None else None
    if torch is not None and info is None and "+" not in torch.version:
        info = _torch_of_runtime_wheel(torch.version, merged.packages or ()) or _torch_of_pypi_linux(
            torch.version, merged
        )
    if info is None:
        return merged
    frameworks = _merge(merged.frameworks, Frameworks(torch=info))
    return ImportedSections(**{**{f: getattr(merged, f) for f in _FIELDS}, "frameworks": frameworks})


_RUNTIME_WHEEL = re.compile(r"^nvidia-cuda-runtime-cu(?P<major>\d{2})$")


def _torch_of_runtime_wheel(version: str, packages: tuple[Package, ...]) -> TorchInfo | None:
    """A PyPI torch (no version tag) next to the CUDA runtime wheel it pulled in: that wheel's
    ``major.minor`` is the CUDA torch was built with (``pip freeze`` of a Linux env shows both)."""
    for package in packages:
        match = _RUNTIME_WHEEL.match(package.name.lower().replace("_", "-"))
        parts = package.version.split(".")
        if match and len(parts) >= 2 and parts[0] == match.group("major"):
            return TorchInfo(status="ok", version=version, cuda=f"{parts[0]}.{parts[1]}")
    return None


def _torch_of_pypi_linux(version: str, merged: ImportedSections) -> TorchInfo | None:
    """A bare ``torch==2.5.1`` on a Linux NVIDIA host is PyPI's wheel, and PyPI's Linux x86_64 wheel is a
    CUDA build of a known CUDA (rules/data/torch_wheels.yaml ``pypi_cuda``). Not inferred where the report
    shows Windows or macOS (PyPI's wheels there are CPU-only) or no NVIDIA GPU (nothing to judge)."""
    nvidia = merged.accelerators.nvidia if merged.accelerators else None
    devices = (nvidia.devices or ()) if nvidia is not None else ()
    os_name = (merged.host.os_name or "").lower() if merged.host else ""
    not_linux = os_name.startswith(("windows", "microsoft", "mac"))
    if not devices or not_linux or any(d.driver_model for d in devices):
        return None  # a driver model (WDDM, TCC, MCDM) is only reported on Windows
    cuda = knowledge.pypi_torch_cuda(version)
    return TorchInfo(status="ok", version=version, cuda=cuda) if cuda else None


def _place_message_devices(found: messages.Found, merged: ImportedSections) -> messages.Found:
    """Give each GPU a message names the index of the same-named GPU the report lists."""
    nvidia = merged.accelerators.nvidia if merged.accelerators else None
    known = list(nvidia.devices or ()) if nvidia is not None else []
    placed: list[NvidiaDevice] = []
    for device in found.devices:
        wanted = (device.name or "").lower()
        same = [d for d in known if d.name and (d.name.lower() in wanted or wanted in d.name.lower())]
        if same:
            placed.extend(msgspec.structs.replace(device, index=d.index, name=d.name) for d in same)
        elif len(known) == 1 and len(found.devices) == 1:
            placed.append(msgspec.structs.replace(device, index=known[0].index, name=known[0].name))
        else:
            placed.append(msgspec.structs.replace(device, index=len(known) + len(placed)))
    found.devices = placed
    return found


_QUOTED = re.compile(r"^[ \t]*>[ \t]?", re.MULTILINE)


def _extension_cuda(facts: list[evidence.Fact], merged: ImportedSections) -> list[ReportMessage]:
    """detectron2's report names the CUDA its compiled ops were built with; another major than torch's
    means the prebuilt extension is for another torch build (its ops fail to load or crash)."""
    built = next((f for f in facts if f.kind == "extension-cuda"), None)
    torch = merged.frameworks.torch if merged.frameworks else None
    if (
        built is None
        or torch is None
        or not torch.cuda
        or built.value.split(".")[0] == torch.cuda.split(".")[0]
    ):
        return []
    text = (
        f"line {built.line}: {built.detail} compiled with CUDA {built.value}; "
        f"torch is built with CUDA {torch.cuda}"
    )
    return [ReportMessage(kind="extension-other-cuda", text=text)]


def _placed(read: ImportedSections, merged: ImportedSections) -> ImportedSections:
    """Facts' GPUs matched to the report's own by name (else appended), so a name is one device."""
    nvidia = read.accelerators.nvidia if read.accelerators else None
    known = merged.accelerators.nvidia if merged.accelerators else None
    if nvidia is None or not nvidia.devices or known is None or not known.devices:
        return read
    placed = []
    for device in nvidia.devices:
        wanted = (device.name or "").lower()
        same = next(
            (d for d in known.devices if d.name and (d.name.lower() in wanted or wanted in d.name.lower())),
            None,
        )
        if same is not None:
            placed.append(msgspec.structs.replace(device, index=same.index, name=same.name))
        elif len(known.devices) == 1 and len(nvidia.devices) == 1:
            placed.append(
                msgspec.structs.replace(device, index=known.devices[0].index, name=known.devices[0].name)
            )
    devices = tuple(placed) or None
    amd = read.accelerators.amd if read.accelerators else None
    intel = read.accelerators.intel if read.accelerators else None
    accelerators = Accelerators(nvidia=msgspec.structs.replace(nvidia, devices=devices), amd=amd, intel=intel)
    return ImportedSections(**{**{f: getattr(read, f) for f in _FIELDS}, "accelerators": accelerators})


def _stated_cpu_build(merged: ImportedSections, printed: list[ReportMessage]) -> bool:
    """Whether a format states torch's build as CPU-only: a ``+cpu`` wheel, conda's CPU build (the conda
    readers keep a ``py3.8_cpu_0`` pytorch row as the bare version with no CUDA), or collect_env's "CUDA
    used to build PyTorch: None" (or "Could not collect") beside the version of a torch that imported."""
    torch = merged.frameworks.torch if merged.frameworks else None
    if torch is None or torch.cuda or torch.hip or not torch.version:
        return False
    if "+cpu" in torch.version:
        return True
    said = next((m for m in printed if m.kind == "torch-build-no-cuda"), None)
    if rule_facts.stated_no_cuda_build(torch, said):
        return True
    return any(
        p.name.lower() == "pytorch" and p.installer == "conda" and p.version == torch.version
        for p in merged.packages or ()
    )


def _cpu_build_kept(
    read: ImportedSections | None, merged: ImportedSections, printed: list[ReportMessage]
) -> ImportedSections | None:
    """The facts without a torch CUDA where a format states a CPU build: an install command's CUDA
    (``conda install pytorch cudatoolkit=10.2``) is what was asked for, the list what was installed."""
    said = read.frameworks if read is not None else None
    torch = said.torch if said is not None else None
    if (
        read is None
        or said is None
        or torch is None
        or torch.cuda is None
        or not _stated_cpu_build(merged, printed)
    ):
        return read
    frameworks = msgspec.structs.replace(said, torch=msgspec.structs.replace(torch, cuda=None))
    return ImportedSections(**{**{f: getattr(read, f) for f in _FIELDS}, "frameworks": frameworks})


def unquote(text: str) -> str:
    """A report quoted in a reply (every line ``> ``-prefixed, Markdown) with the quoting removed."""
    for _ in range(3):  # a reply to a reply quotes twice
        quoted = len(_QUOTED.findall(text))
        lines = len([line for line in text.splitlines() if line.strip()])
        if not (quoted >= 5 or (quoted and quoted * 2 >= lines)):
            break
        text = _QUOTED.sub("", text)
    return text


def _clip_lines(text: str) -> str:
    """Each line cut to ``evidence.MAX_LINE`` characters and its log prefixes stripped.

    No report line needs more, and it bounds what every pattern downstream can cost per line; the
    prefixes (docker, journald, ``[rank0]:``, vLLM's levels) would hide the line from every reader.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    # list comprehensions, not generators: a generator resumes (one Python call) per line
    return "\n".join(
        [log_prefix.strip(line[: evidence.MAX_LINE]) if line.strip() else line for line in lines]
    )


def parse_auto(text: str, name: str, *, captured_at: str) -> Snapshot:
    """Every report section in ``text`` merged into one (unfinalized) snapshot.

    Whole formats are parsed structurally (detect.py); every line is also read for facts
    (evidence.py), which fill what the formats left unknown. Only a paste with no section, no
    recognized message and no fact at all is refused.

    Raises:
        BadInput: the text states nothing envsnap reads.
    """
    json_text = unquote(text)  # single-line JSON (rocm-smi --json) must not be clipped
    text = _clip_lines(json_text)
    sections = detect.detect(text, name, captured_at=captured_at, json_text=json_text)
    printed = messages.scan(text)
    facts = evidence.read(text)
    if not sections and not printed.messages and not facts:
        raise BadInput(
            f"{name}: not a report envsnap can read (no fact found; tried: {', '.join(detect.FORMATS)})"
        )
    merged = _merge_sections([s.sections for s in sections if s.sections is not None])
    merged = _torch_from_packages(merged)
    printed = _place_message_devices(printed, merged)
    said = printed.sections()
    if said is not None:
        merged = _merge_sections([merged, said])
    read = _cpu_build_kept(evidence_sections.sections(facts), merged, printed.messages)
    filled = _merge_sections([merged, _placed(read, merged)]) if read is not None else merged
    read = read if filled != merged else None  # facts the formats already stated add nothing
    merged = filled
    printed.messages.extend(_extension_cuda(facts, merged))
    names = tuple(dict.fromkeys(s.format for s in sections))
    if printed.messages:
        names = (*names, "torch messages") if "traceback" not in names else names
    if not sections and (read is not None or not names):
        # read from facts alone (beside a format they only fill its gaps); also when the facts state
        # nothing a rule reads (an NCCL release), so the notice never names an empty list
        names = (*names, "facts")
    missing = tuple(m for s in sections for m in s.missing)
    origin = Origin(
        kind="import",
        format="auto",
        file=name,
        sections=names,
        partial=True if missing else None,
        missing=missing or None,
        messages=tuple(printed.messages) or None,
    )
    return Snapshot(
        schema=SCHEMA_VERSION,
        meta=Meta(envsnap_version=__version__, captured_at=captured_at, origin=origin),
        **{field: getattr(merged, field) for field in _FIELDS},
    )


def _not_stated(snapshot: Snapshot) -> list[str]:
    """What a snapshot built from facts alone does not know, in the words of the notice."""
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    missing = []
    if nvidia is None or not nvidia.driver_version:
        missing.append("the driver")
    if nvidia is None or not nvidia.devices:
        missing.append("the GPUs")
    if torch is None or not (torch.cuda or torch.hip or (torch.version and "+cpu" in torch.version)):
        missing.append("torch's build")
    if not snapshot.packages:
        missing.append("the packages")
    return missing


def notice(snapshot: Snapshot) -> list[str]:
    """The stderr lines for an auto-detected import: what was found, and what a cut-off paste lacks."""
    origin = snapshot.meta.origin
    if origin is None or origin.format != "auto":
        return []
    lines = [f"envsnap: {origin.file}: read {', '.join(origin.sections or ())}"]
    if "facts" in (origin.sections or ()):
        unknown = _not_stated(snapshot)
        if unknown:
            lines.append(
                f"envsnap: {origin.file}: no whole report in the paste, only facts read line by line; "
                f"not stated: {', '.join(unknown)} (unknown, not absent)"
            )
    if origin.partial:
        lines.append(
            f"envsnap: warning: {origin.file}: the report is cut off "
            f"(no {', '.join(repr(m) for m in origin.missing or ())}"
            " section); judged on what it holds, the rest is unknown"
        )
    return lines
