"""Machine-readable output: the model as JSON with stable keys."""

from __future__ import annotations

import json
from typing import Any

import msgspec


def to_json(value: Any) -> str:
    """Pretty JSON for any model object (or plain data), keys in model order."""
    return json.dumps(msgspec.to_builtins(value), indent=2)  # ASCII: no raw C1/bidi controls reach a terminal
