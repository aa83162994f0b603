"""Import what ``rocm-smi`` and ``amd-smi`` print, as text or JSON: AMD devices, gfx targets, driver.

Grounded in the real captures of ../shared/fixtures/rocm-smi and ../shared/fixtures/amd-smi:
``rocm-smi --json`` is an object of ``card0``, ``card1``... (``Card series``/``Card Series``,
``GFX Version`` from ROCm 6, ``PCI Bus``) plus ``system`` (``Driver version``); its text form
prints ``GPU[0]  : Card series:  ...`` lines. ``amd-smi static --json`` is a list (or
``{"gpu_data": [...]}``) of ``{gpu, asic: {market_name, target_graphics_version}, bus: {bdf}}``,
and its text form the same keys in upper case under ``GPU: 0``.
"""

from __future__ import annotations

import re
from typing import Any

from envsnap.importers.base import ImportedSections
from envsnap.snapshot.model import Accelerators, AmdDevice, AmdInfo

ROCM_SMI_TEXT = re.compile(r"^GPU\[(?P<index>\d+)\]\s*:\s*(?P<key>[^:]+?):\s*(?P<value>.*)$")
AMD_SMI_GPU = re.compile(r"^GPU:\s*(?P<index>\d+)\s*$")
_AMD_SMI_KEY = re.compile(r"^\s+(?P<key>[A-Z_]+):\s*(?P<value>.*)$")
_GFX = re.compile(r"\bgfx[0-9a-f]{3,4}\b")
_DRIVER = re.compile(r"Driver version:\s*(?P<version>[\d.]+)", re.IGNORECASE)
_ROCM = re.compile(r"ROCm version:\s*(?P<version>[\d.]+)", re.IGNORECASE)


def _info(
    devices: list[AmdDevice], driver: str | None = None, rocm: str | None = None
) -> ImportedSections | None:
    if not devices and not driver:
        return None
    amd = AmdInfo(
        status="ok", source="import", driver_version=driver, rocm_version=rocm, devices=tuple(devices) or None
    )
    return ImportedSections(accelerators=Accelerators(amd=amd))


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() and value.strip() != "N/A" else None


def _gfx(value: Any) -> str | None:
    text = _text(value)
    match = _GFX.search(text.lower()) if text else None
    return match.group(0) if match else None


def _memory(value: Any) -> int | None:
    text = _text(value)
    return int(text) if text and text.isdigit() else None


def parse_rocm_smi_json(data: dict[str, Any]) -> ImportedSections | None:
    """``rocm-smi ... --json``: one ``cardN`` object per GPU, ``system`` for the driver."""
    devices = []
    cards = sorted((k for k in data if re.fullmatch(r"card\d+", k)), key=lambda k: int(k[4:]))
    for key in cards:
        card = data[key] if isinstance(data[key], dict) else {}
        fields = {k.lower(): v for k, v in card.items()}
        name = _text(fields.get("card series")) or _text(fields.get("device name"))
        devices.append(
            AmdDevice(
                index=int(key[4:]),
                name=name,
                gfx_target=_gfx(fields.get("gfx version")),
                pci_bus_id=_text(fields.get("pci bus")),
                device_id=_text(fields.get("card model"))
                if str(fields.get("card model", "")).startswith("0x")
                else None,
                memory_total_bytes=_memory(fields.get("vram total memory (b)")),
            )
        )
    system = _mapping(data.get("system"))
    return _info(devices, _text(system.get("Driver version")), _text(system.get("ROCm version")))


_JSON_CARD = re.compile(r'^\s*"(?P<card>card\d{1,3})"\s*:\s*\{\s*$')
_JSON_FIELD = re.compile(r'^\s*"(?P<key>[^"\n]{1,80})"\s*:\s*"(?P<value>[^"\n]{0,300})"\s*,?\s*$')
_JSON_NAMING = ("card series", "device name", "gfx version")


def parse_rocm_smi_json_lines(lines: list[str]) -> ImportedSections | None:
    """``rocm-smi --json`` cut short (a paste that stops inside the object, so no JSON parser reads it):
    the pretty-printed ``"cardN": {`` openings and the ``"key": "value",`` lines under them, read line by
    line into the same fields :func:`parse_rocm_smi_json` reads. Only a card that names its GPU (series,
    device name or gfx version) counts; a bare ``card0`` key is no device."""
    data: dict[str, dict[str, str]] = {}
    card: dict[str, str] | None = None
    for line in lines:
        opening = _JSON_CARD.match(line)
        if opening:
            card = data.setdefault(opening.group("card"), {})
            continue
        field = _JSON_FIELD.match(line)
        if field and card is not None:
            card.setdefault(field.group("key"), field.group("value"))
        elif line.strip().startswith("}"):
            card = None
    named = {
        key: fields
        for key, fields in data.items()
        if any(k.lower() in _JSON_NAMING and _text(v) for k, v in fields.items())
    }
    return parse_rocm_smi_json(dict(named)) if named else None


AMD_SMI_METRIC_SECTION = re.compile(
    r"^[ \t]+(?:USAGE|POWER|CLOCK|TEMPERATURE|PCIE|ECC|ECC_BLOCKS|MEM_USAGE|ENERGY|THROTTLE|FAN"
    r"|VOLTAGE_CURVE):[ \t]*$",
    re.MULTILINE,
)
"""A section heading of ``amd-smi metric`` text (under ``GPU: 0``): the GPU's index, no name or gfx target."""


def parse_amd_smi_json(data: Any) -> ImportedSections | None:
    """``amd-smi static --json`` (or ``metric``): a list of ``{gpu, asic, bus, ...}`` objects."""
    entries = data.get("gpu_data") if isinstance(data, dict) else data
    devices = []
    for position, entry in enumerate(entries if isinstance(entries, list) else []):
        if not isinstance(entry, dict):
            continue
        asic, bus = _mapping(entry.get("asic")), _mapping(entry.get("bus"))
        gpu = entry.get("gpu")
        index = gpu if isinstance(gpu, int) else position
        devices.append(
            AmdDevice(
                index=index,
                name=_text(asic.get("market_name")),
                gfx_target=_gfx(asic.get("target_graphics_version")),
                pci_bus_id=_text(bus.get("bdf")),
                device_id=_text(asic.get("device_id")),
                compute_units=asic.get("num_compute_units")
                if isinstance(asic.get("num_compute_units"), int)
                else None,
            )
        )
    return _info(devices)


def parse_rocm_smi_text(lines: list[str]) -> ImportedSections | None:
    """``rocm-smi`` text: ``GPU[0] : Card series: ...`` lines (``--showproductname``, ``-a``)."""
    cards: dict[int, dict[str, str]] = {}
    driver = rocm = None
    for line in lines:
        match = ROCM_SMI_TEXT.match(line.strip())
        if match:
            cards.setdefault(int(match.group("index")), {}).setdefault(
                match.group("key").strip().lower(), match.group("value").strip()
            )
            continue
        driver = driver or ((m := _DRIVER.search(line)) and m.group("version")) or None
        rocm = rocm or ((m := _ROCM.search(line)) and m.group("version")) or None
    devices = [
        AmdDevice(
            index=index,
            name=_text(fields.get("card series")) or _text(fields.get("device name")),
            gfx_target=_gfx(fields.get("gfx version")),
            pci_bus_id=_text(fields.get("pci bus")),
        )
        for index, fields in sorted(cards.items())
    ]
    return _info(devices, driver, rocm)


def parse_amd_smi_text(lines: list[str]) -> ImportedSections | None:
    """``amd-smi static`` text: ``GPU: 0`` headings, upper-case keys below."""
    cards: list[dict[str, str]] = []
    for line in lines:
        heading = AMD_SMI_GPU.match(line.strip())
        if heading:
            cards.append({"index": heading.group("index")})
            continue
        match = _AMD_SMI_KEY.match(line)
        if match and cards:
            cards[-1].setdefault(match.group("key"), match.group("value").strip())
    devices = [
        AmdDevice(
            index=int(card["index"]),
            name=_text(card.get("MARKET_NAME")),
            gfx_target=_gfx(card.get("TARGET_GRAPHICS_VERSION")),
            pci_bus_id=_text(card.get("BDF")),
            device_id=_text(card.get("DEVICE_ID")),
        )
        for card in cards
    ]
    return _info(devices)


ROCM_SMI_CONCISE = re.compile(
    r"^[ \t]*(?:>[ \t]*)?(?:Device|GPU)[ \t]+[^\n]*(?:\bVRAM%|\bSCLK[ \t]+(?:OD[ \t]+)?MCLK\b)", re.MULTILINE
)
"""Header of the default rocm-smi table ("Concise Info": ROCm 4 ``GPU Temp``, ROCm 6 ``Device Node IDs``;
before VRAM% was added, ROCm 1.x-3.x: ``GPU Temp AvgPwr SCLK MCLK ... SCLK OD MCLK OD``, quoted or not)."""
_CONCISE_ROW = re.compile(r"^(?P<index>\d+)\s+(?P<rest>\S.*)$")
_DEVICE_ID = re.compile(r"\b(?P<did>0x[0-9a-fA-F]{4}),")


def parse_rocm_smi_concise(lines: list[str]) -> ImportedSections | None:
    """The default ``rocm-smi`` table: one row per GPU (or partition), PCI device id where shown."""
    devices: dict[int, AmdDevice] = {}
    started = False
    for line in lines:
        if not started:
            started = bool(ROCM_SMI_CONCISE.match(line))
            continue
        if line.startswith("====") and devices:
            break
        row = _CONCISE_ROW.match(line.strip())
        if row is None:
            continue
        did = _DEVICE_ID.search(row.group("rest"))
        index = int(row.group("index"))
        devices.setdefault(index, AmdDevice(index=index, device_id=did.group("did") if did else None))
    return _info([devices[i] for i in sorted(devices)])


ROCMINFO_GPU = re.compile(r"^[ \t]*Name:[ \t]+gfx[0-9a-f]{3,4}\b", re.MULTILINE)
"""A GPU agent's first line in ``rocminfo`` (``Name: gfx942``); CPU agents name the CPU there."""
ROCMINFO_ISA = re.compile(r"^[ \t]*Name:[ \t]+amdgcn-amd-amdhsa--gfx[0-9a-f]{3,4}\b", re.MULTILINE)
"""A GPU agent's ISA line (``Name: amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-``): a paste from inside an
agent."""
ROCMINFO_MARKETING = re.compile(r"^[ \t]*Marketing Name:[ \t]+\S", re.MULTILINE)
ROCMINFO_DEVICE_GPU = re.compile(r"^[ \t]*Device Type:[ \t]+GPU\b", re.MULTILINE)


def looks_like_rocminfo(text: str) -> bool:
    """A rocminfo GPU agent, whole or pasted from inside: its ``Name: gfxNNN`` line, its ISA line, or its
    ``Marketing Name:`` with ``Device Type: GPU`` (people often copy an agent from below its first line)."""
    return bool(
        ROCMINFO_GPU.search(text)
        or ROCMINFO_ISA.search(text)
        or (ROCMINFO_MARKETING.search(text) and ROCMINFO_DEVICE_GPU.search(text))
    )


_ROCMINFO_KEY = re.compile(
    # the value is stripped in Python: a lazy value before trailing blanks would backtrack per blank
    r"^[ \t]*(?P<key>Name|Marketing Name|Device Type):(?P<value>[^\n]*)"
)


def parse_rocminfo(lines: list[str]) -> ImportedSections | None:
    """``rocminfo``'s HSA agents: each starts at ``Name:``; GPU agents name their gfx target there and
    their product in ``Marketing Name:``. The ISA lines further down (``Name: amdgcn-amd-amdhsa--gfx942``)
    repeat the target and start no agent."""
    agents: list[dict[str, str]] = []
    for line in lines:
        match = _ROCMINFO_KEY.match(line)
        if match is None:
            continue
        key, value = match.group("key"), match.group("value").strip()
        if not value:
            continue
        if key == "Name":
            if not value.startswith("amdgcn-"):
                agents.append({"Name": value})
            elif _GFX.search(value.lower()):
                # the ISA repeats the agent's target; a paste that starts below the agent's Name keeps it here
                if not agents:
                    agents.append({"Name": "", "Device Type": "GPU"})
                if not _GFX.fullmatch(agents[-1]["Name"].lower()):
                    agents[-1]["Name"] = _GFX.search(value.lower()).group(0)  # type: ignore[union-attr]
        else:
            if not agents:
                agents.append({"Name": ""})  # pasted from inside the first agent, below its Name line
            agents[-1].setdefault(key, value)
    gpus = [
        agent
        for agent in agents
        if _GFX.fullmatch(agent["Name"].lower()) or agent.get("Device Type", "").upper() == "GPU"
    ]
    devices = [
        AmdDevice(index=index, name=_marketing_name(agent), gfx_target=_gfx(agent["Name"]))
        for index, agent in enumerate(gpus)
    ]
    return _info(devices)


def _marketing_name(agent: dict[str, str]) -> str | None:
    """The product name, clipped like the other readers' GPU names (it lands in finding titles)."""
    name = _text(agent.get("Marketing Name"))
    return name[:_NAME_CHARS].rstrip() if name else None


_NAME_CHARS = 80
"""No GPU's marketing name is longer; a longer one is pasted noise or hostile."""
