"""Secret scrubbing for live reports: nothing a workload was given reaches a report file or JSON.

A command line is the usual place for credentials (``--token=hf_...``, ``--password hunter2``,
``https://user:pw@host``), and ``envsnap run``/``watch`` record one; process names, probe reasons
and warning texts are free text too. So every string of a report passes ``redact.redact_text``,
and the ``command`` field ``redact.redact_argv``, which also catches a secret given as the item
after a secret-named option. Reports are scrubbed when they are built, so the YAML file, the
``--json`` output and the stderr summary all show the same, redacted, text.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from envsnap.snapshot.redact import redact_argv, redact_text

R = TypeVar("R", bound=msgspec.Struct)


def scrub_report(report: R) -> R:
    """The report with every string redacted, and ``command`` redacted as a command line."""
    data = msgspec.to_builtins(report)
    if isinstance(data, dict) and isinstance(data.get("command"), (list, tuple)):
        data["command"] = redact_argv(data["command"])
    scrubbed: R = msgspec.convert(_strings(data), type(report))
    return scrubbed


def _strings(value: Any) -> Any:
    """Redact every string value; mapping keys are ours (field names, device keys) and stay."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {key: _strings(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):  # msgspec.to_builtins keeps tuples
        return [_strings(item) for item in value]
    return value
