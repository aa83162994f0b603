"""``envsnap audit --json``: the report as plain data, without Rich (a JSON run does not import it)."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from envsnap.audit.model import AuditReport


def audit_data(report: AuditReport) -> dict[str, Any]:
    """The ``--json`` document as plain data."""
    data = msgspec.to_builtins(report)
    assert isinstance(data, dict)
    return data


def audit_json(report: AuditReport) -> str:
    """``audit_data`` as pretty JSON (ASCII: no raw control or bidi characters reach a terminal)."""
    return json.dumps(audit_data(report), indent=2)
