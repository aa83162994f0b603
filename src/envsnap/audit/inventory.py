"""The project-wide HIPIFY inventory: every CUDA API the native code calls, mapped or not.

The native scanner leaves one ``hipify-inventory`` signal per file (``api=NAME:COUNT:FIRST_LINE``);
this sums them over the counted files (core code, or all with ``--include-tests``) into what
``hipify-clang --examine`` prints for a tree: how many APIs, how many hipify maps, which ones it
cannot, and where those are called.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from envsnap.audit import hipify
from envsnap.audit.model import ApiUse, HipifyInventory, Signal
from envsnap.audit.roles import role_of

MAX_PLACES = 10
"""``file:line`` places kept per API (the first files, in path order)."""
MAX_UNKNOWN = 20


@dataclass
class _Tally:
    count: int = 0
    where: list[str] = field(default_factory=list)


def _parse(item: str) -> tuple[str, int, int] | None:
    """``api=cudaMalloc:3:12`` -> (name, count, first line); None if malformed."""
    if not item.startswith("api="):
        return None
    parts = item[4:].rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        return None
    return parts[0], int(parts[1]), int(parts[2])


def hipify_inventory(signals: Iterable[Signal], *, include_all: bool = False) -> HipifyInventory | None:
    """The inventory of the counted files, or None when they call no CUDA library API at all."""
    tallies: dict[str, _Tally] = {}
    unknown: list[str] = []
    blocked: dict[str, list[str]] = {}  # unsupported API -> every call place (the evidence to fix)
    for signal in sorted(
        (s for s in signals if s.kind in ("hipify-inventory", "hipify-unsupported")),
        key=lambda s: (s.file or "", s.line or 0),
    ):
        if not include_all and role_of(signal.file or "") != "core":
            continue
        if signal.kind == "hipify-unsupported":
            places = blocked.setdefault(signal.subject, [])
            for number in signal.facts().get("lines", "").split(","):
                if number.isdigit() and len(places) < MAX_PLACES:
                    places.append(f"{signal.file}:{number}")
            continue
        for item in signal.detail:
            if item.startswith("unknown="):
                for name in item[len("unknown=") :].split(","):
                    if name and name not in unknown and len(unknown) < MAX_UNKNOWN:
                        unknown.append(name)
                continue
            parsed = _parse(item)
            if parsed is None:
                continue
            name, count, line = parsed
            tally = tallies.setdefault(name, _Tally())
            tally.count += count
            if len(tally.where) < MAX_PLACES:
                tally.where.append(f"{signal.file}:{line}")
    if not tallies and not unknown:
        return None
    apis: list[ApiUse] = []
    sources: list[str] = []
    for name, tally in tallies.items():
        api = hipify.lookup(name)
        if api is None:
            continue
        family = hipify.families()[api.family]
        if family.source not in sources:
            sources.append(family.source)
        apis.append(
            ApiUse(
                name=name,
                library=family.title,
                status=api.status,
                hip=api.hip,
                count=tally.count,
                where=tuple(blocked.get(name) or tally.where),
            )
        )
    apis.sort(key=lambda a: (hipify.STATUSES.index(a.status), -a.count, a.name))
    unsupported = sum(1 for a in apis if a.status == "unsupported")
    return HipifyInventory(
        used=len(apis),
        mapped=len(apis) - unsupported,
        deprecated=sum(1 for a in apis if a.status == "deprecated"),
        unsupported=unsupported,
        apis=tuple(apis),
        unknown=tuple(unknown),
        sources=tuple(sorted(sources)),
    )
