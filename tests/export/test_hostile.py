"""Hostile data in the exposition: quotes, newlines, backslashes, escapes, huge fields and secrets.

A label value comes from a GPU name, a probe name, a process name, a file someone else wrote. The
exposition must stay well-formed (no forged line, no forged series), parse back to the sanitized
value with prometheus-client's own parser, pass ``promtool check metrics``, stay bounded in size,
and never carry a secret.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from envsnap import cli
from envsnap.live.watch_state import WatchState
from envsnap.render.prometheus import MAX_LABEL_CHARS, exposition, label, snapshot_families, watch_families
from envsnap.snapshot.model import ProbeRun, Snapshot
from tests.export.engine import missing
from tests.export.helpers import node, promtool, samples, save, series

SECRET = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
FORGED = 'H100"} 1\nenvsnap_forged{x="y'
HOSTILE_NAMES = [
    FORGED,
    'back\\slash\\\\n and \\"quote\\"',
    "esc \x1b[31mred\x1b[0m \x9b bell\x07 \u202e-reversed",
    f"NVIDIA H100 token={SECRET}",
    "[bold red]rich markup[/] is text here",
    "x" * 1_000_000,
]


def _hostile(name: str) -> Snapshot:
    base = node()
    accelerators = base.accelerators
    assert accelerators is not None
    assert accelerators.nvidia is not None
    assert accelerators.nvidia.devices
    device = msgspec.structs.replace(accelerators.nvidia.devices[0], name=name, uuid=f"GPU-{name[:40]}")
    nvidia = msgspec.structs.replace(accelerators.nvidia, devices=(device,), driver_version=name)
    probes = (ProbeRun(name=name, status="failed", duration_s=1.0, reason=name),)
    return msgspec.structs.replace(
        base,
        accelerators=msgspec.structs.replace(accelerators, nvidia=nvidia),
        meta=msgspec.structs.replace(base.meta, probes=probes),
    )


def _check_well_formed(text: str) -> None:
    for line in text.splitlines():
        assert line.startswith(("# HELP envsnap_", "# TYPE envsnap_", "envsnap_")), line[:200]
    assert "envsnap_forged" not in {s.name for s in samples(text)}
    assert SECRET not in text
    assert "\x1b" not in text
    assert "\x9b" not in text
    assert "\u202e" not in text


@pytest.mark.parametrize(
    "name", HOSTILE_NAMES, ids=["forged-line", "backslashes", "controls", "secret", "markup", "huge"]
)
def test_hostile_label_values_round_trip_sanitized(name: str) -> None:
    text = exposition([*snapshot_families(_hostile(name)), *watch_families(
        [WatchState(pid=1, process=name, verdict="inconclusive", active=True, updated_at=1.0)]
    )])  # fmt: skip
    _check_well_formed(text)
    expected = label(name)
    assert len(expected) <= MAX_LABEL_CHARS + 40  # the cut says the full length
    ((gpu, _),) = series(text, "envsnap_gpu_info")
    assert gpu["name"] == expected
    ((stack, _),) = series(text, "envsnap_stack_info")
    assert stack["driver"] == expected
    assert {labels["probe"] for labels, _ in series(text, "envsnap_probe_status")} == {expected}
    assert {labels["process"] for labels, _ in series(text, "envsnap_watch_active")} == {expected}
    assert len(text) < 20_000  # a 1 MB name costs a bounded label, not a 1 MB series


def test_label_is_redacted_one_line_and_capped() -> None:
    assert SECRET not in label(f"token={SECRET}")
    assert "\n" not in label("a\nb")
    assert label("a\nb") == "a b"
    assert label("\x1b") == "\\x1b"
    assert label(None) == ""
    assert label("x" * 10_000).startswith("x" * MAX_LABEL_CHARS)


@pytest.mark.skipif(missing("promtool") is not None, reason=str(missing("promtool")))
def test_promtool_accepts_the_hostile_exposition() -> None:
    text = exposition([*snapshot_families(_hostile(FORGED + HOSTILE_NAMES[2] + SECRET))])
    done = promtool("check", "metrics", stdin=text)
    assert done.returncode == 0, done.stdout + done.stderr


def test_hostile_snapshot_file_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A hand-edited snapshot file is redacted again before anything is exported."""
    path = save(_hostile(f"{FORGED} {SECRET}"), tmp_path / "hostile.yaml")
    out = tmp_path / "envsnap.prom"
    assert cli.run(["export", "prometheus", str(path), "-o", str(out)]) == 0
    text = out.read_text()
    _check_well_formed(text)
    ((gpu, _),) = series(text, "envsnap_gpu_info")
    assert gpu["name"] == label(f"{FORGED} {SECRET}")
    assert gpu["name"].endswith("<redacted>")
    assert SECRET not in capsys.readouterr().err
