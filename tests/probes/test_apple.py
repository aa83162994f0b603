"""The Apple (MPS) probe with an injected platform: a Mac is played on Linux.

The Mac's answers are those of a real M1 Pro running macOS 12.6 (``sw_vers`` and
``sysctl machdep.cpu`` as posted in a public benchmark write-up, see tests/data/SOURCES.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from envsnap.probes import apple
from envsnap.probes.base import CommandResult, ProbeContext
from envsnap.snapshot.model import MpsInfo


class FakeSysctl:
    """Records the command and answers like ``sysctl -n`` (or fails to start)."""

    def __init__(self, result: CommandResult) -> None:
        self.result = result
        self.argv: list[str] = []

    def __call__(self, argv: Sequence[str], **kwargs: Any) -> CommandResult:
        self.argv = list(argv)
        return self.result


def test_macos_chip_and_version() -> None:
    sysctl = FakeSysctl(CommandResult(0, "Apple M1 Pro\n", ""))
    info = apple.probe(
        ProbeContext(),
        system=lambda: "Darwin",
        mac_ver=lambda: ("12.6", ("", "", ""), "arm64"),
        run=sysctl,
    )
    assert info == MpsInfo(status="ok", chip="Apple M1 Pro", macos_version="12.6")
    assert info.available is None  # torch's answer, recorded by the frameworks probe
    assert sysctl.argv == ["sysctl", "-n", "machdep.cpu.brand_string"]


def test_macos_without_sysctl_still_reports_the_version() -> None:
    info = apple.probe(
        ProbeContext(),
        system=lambda: "Darwin",
        mac_ver=lambda: ("12.6", ("", "", ""), "arm64"),
        run=FakeSysctl(CommandResult(None, "", "", error="sysctl not found")),
    )
    assert (info.status, info.chip, info.macos_version) == ("ok", None, "12.6")


def test_linux_is_skipped() -> None:
    """This machine, with the real platform functions."""
    assert apple.probe(ProbeContext()) == MpsInfo(status="skipped", reason="not macOS (Linux)")


def test_windows_is_skipped_without_running_sysctl() -> None:
    sysctl = FakeSysctl(CommandResult(0, "", ""))
    info = apple.probe(ProbeContext(), system=lambda: "Windows", run=sysctl)
    assert (info.status, info.reason, sysctl.argv) == ("skipped", "not macOS (Windows)", [])
