"""A spinner on stderr that names the probes still running, so slow work is never silent."""

from __future__ import annotations

import threading
from typing import Any

from envsnap.collector import ProbeEvent


class ProbeSpinner:
    """Progress callback for collect(): a live status line while probes run."""

    def __init__(self, console: Any) -> None:
        self._console = console
        self._running: list[str] = []
        self._lock = threading.Lock()
        self._status: Any = None

    def __call__(self, event: ProbeEvent) -> None:
        with self._lock:
            if event.state == "started":
                self._running.append(event.name)
            elif event.name in self._running:
                self._running.remove(event.name)
            text = f"probing: {', '.join(self._running)}" if self._running else ""
            if self._status is None and self._running:
                self._status = self._console.status(text, spinner="dots")
                self._status.start()
            elif self._status is not None:
                if self._running:
                    self._status.update(text)
                else:
                    self._status.stop()
                    self._status = None
