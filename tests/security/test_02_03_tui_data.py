"""2. The TUI never writes a terminal escape from data; 3. markup in device names is shown, not parsed."""

from __future__ import annotations

import html

import msgspec
import pytest
from textual.app import App, ComposeResult

from envsnap.snapshot.model import DeviceSample, Sample
from envsnap.tui.messages import SampleTaken, SnapshotCollected, SnapshotLoadFailed
from envsnap.tui.widgets.device_card import DeviceCard, DeviceView
from tests.fakes.diff_snapshots import make

HOSTILE = "vm\x1b]0;PWNED\x07\x1b[31mRED\u202e\x9b"


def _raw_controls(text: str) -> bool:
    return any(ch in text for ch in ("\x1b", "\x07", "\u202e", "\x9b"))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, (list, tuple)):
        return [s for item in value for s in _strings(item)]
    return []


def test_every_string_of_a_snapshot_message_is_escaped() -> None:
    snapshot = make()
    assert snapshot.host is not None
    assert snapshot.packages
    hostile = msgspec.structs.replace(
        snapshot,
        host=msgspec.structs.replace(snapshot.host, hostname=HOSTILE),
        packages=(msgspec.structs.replace(snapshot.packages[0], version=HOSTILE), *snapshot.packages[1:]),
    )
    shown = SnapshotCollected(hostile).snapshot
    assert not any(_raw_controls(text) for text in _strings(msgspec.to_builtins(shown)))
    assert shown.host is not None
    assert "\\x1b]0;PWNED" in (shown.host.hostname or "")
    assert shown.packages is not None
    assert shown.packages[0].version.startswith("vm\\x1b")


def test_device_samples_and_errors_are_escaped() -> None:
    sample = Sample(
        captured_at="2026-01-01T00:00:00Z",
        devices=(DeviceSample(vendor="nvidia", index=0, name=HOSTILE, status="ok"),),
        errors=(HOSTILE,),
    )
    message = SampleTaken(sample, {}, {})
    assert message.sample.devices is not None
    assert not _raw_controls(message.sample.devices[0].name or "")
    assert not _raw_controls(SnapshotLoadFailed(HOSTILE).error)


class _CardApp(App[None]):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.device_name = name

    def compose(self) -> ComposeResult:
        sample = DeviceSample(vendor="nvidia", index=0, name=self.device_name, status="ok")
        yield DeviceCard(DeviceView(sample))


@pytest.mark.parametrize("name", ["[/]", "[bold]x[/bold", "[link=http://evil.example]GPU[/link]"])
async def test_markup_in_a_device_name_is_shown_not_parsed(name: str) -> None:
    app = _CardApp(name)
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = html.unescape(app.export_screenshot()).replace("\xa0", " ")
        assert name in screen  # drawn as it is: neither parsed as markup nor a crash
