"""Signal relay decisions and exit statuses (the end-to-end signal tests are in test_run_cli.py)."""

from __future__ import annotations

import signal

from envsnap.live.signals import SignalRelay, exit_status


def test_signals_from_the_terminal_are_not_forwarded_twice() -> None:
    sent: list[int] = []
    relay = SignalRelay(sent.append)

    relay.handle(signal.SIGINT, from_terminal=True)
    relay.handle(signal.SIGTERM, from_terminal=False)

    assert sent == [signal.SIGTERM]
    assert relay.received == ["SIGINT", "SIGTERM"]
    assert relay.forwarded == ["SIGTERM"]


def test_forwarding_to_a_finished_workload_is_harmless() -> None:
    def gone(signum: int) -> None:
        raise ProcessLookupError

    relay = SignalRelay(gone)
    relay.handle(signal.SIGINT, from_terminal=False)
    assert relay.forwarded == ["SIGINT"]


def test_exit_status_follows_the_shell() -> None:
    assert exit_status(0) == (0, None)
    assert exit_status(3) == (3, None)
    assert exit_status(-signal.SIGINT) == (130, "SIGINT")
    assert exit_status(-signal.SIGKILL) == (137, "SIGKILL")
