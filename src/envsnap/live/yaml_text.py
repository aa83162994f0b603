"""YAML text for live reports (``envsnap run``/``watch`` run reports, the guard's op report).

Snapshots have their own, stricter writer and reader in store.py; these reports are plain
msgspec structures, so one small dumper with the same conventions is enough: model field order is
file order, no anchors or aliases, multi-line text as block scalars, LibYAML when present.
"""

from __future__ import annotations

from typing import Any

import msgspec
import yaml

from envsnap.errors import BadInput

_BaseDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Dumper(_BaseDumper):  # type: ignore[misc, valid-type]
    """Safe dumper that never writes anchors and writes multi-line text as block scalars."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_Dumper.add_representer(str, _represent_str)


def dump_yaml(report: msgspec.Struct, header: str) -> str:
    """Serialize a report struct to YAML, ``None`` fields left out, with a ``# header`` comment line."""
    text = yaml.dump(
        msgspec.to_builtins(report),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=4096,
    )
    return f"# {header}\n{text}"


def load_yaml(text: str, kind: type[msgspec.Struct], name: str) -> Any:
    """Parse report YAML back into ``kind``.

    Raises:
        BadInput: not YAML, or not a report of that kind (one line naming ``name``).
    """
    try:
        data = yaml.load(text, Loader=_Loader)  # a SafeLoader: no arbitrary objects
    except yaml.YAMLError as err:
        raise BadInput(f"{name}: not valid YAML: {err}") from None
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as err:
        raise BadInput(f"{name}: not a valid {kind.__name__}: {err}") from None
