"""YAML text for live reports (``envsnap run``/``watch`` run reports, the guard's op report).

The same writer and distrustful reader as snapshots (store.py): model field order is file order,
no anchors, aliases or tags, multi-line text as block scalars, LibYAML when present. Reports are
their own msgspec structures, so only the conversion differs.
"""

from __future__ import annotations

from typing import Any

import msgspec

from envsnap.errors import BadInput
from envsnap.snapshot.store import parse_yaml, to_yaml


def dump_yaml(report: msgspec.Struct, header: str) -> str:
    """Serialize a report struct to YAML, ``None`` fields left out, with a ``# header`` comment line."""
    return f"# {header}\n{to_yaml(msgspec.to_builtins(report))}"


def load_yaml(text: str, kind: type[msgspec.Struct], name: str) -> Any:
    """Parse report YAML back into ``kind``.

    Raises:
        BadInput: not YAML, or not a report of that kind (one line naming ``name``).
    """
    data = parse_yaml(text, name)
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as err:
        raise BadInput(f"{name}: not a valid {kind.__name__}: {err}") from None
