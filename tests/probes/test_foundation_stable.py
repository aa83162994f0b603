"""Two captures of an unchanged machine give byte-identical host/python/packages/environment sections."""

from __future__ import annotations

import msgspec
import pytest

from envsnap.collector import collect
from envsnap.probes.base import ProbeContext
from envsnap.snapshot import store

FOUNDATION = ("host", "python", "packages", "environment")


@pytest.mark.slow
def test_two_captures_have_identical_foundation_sections() -> None:
    ctx = ProbeContext(frameworks=False)
    first, second = collect(ctx), collect(ctx)
    for name in FOUNDATION:
        section = getattr(first, name)
        assert section is not None, name
        assert getattr(second, name) == section, name
    # And the written YAML of those sections is the same, byte for byte.
    only = {name: store.to_builtins(first)[name] for name in FOUNDATION}
    again = {name: store.to_builtins(second)[name] for name in FOUNDATION}
    assert msgspec.json.encode(only) == msgspec.json.encode(again)
    assert first.host is not None
    assert first.host.status == "ok"
    assert first.python is not None
    assert first.python.status == "ok"
    assert first.packages
