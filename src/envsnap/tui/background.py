"""Blocking calls that a quit must not wait for: run them in a daemon thread, watched by the worker.

Textual's thread workers run on asyncio's default executor, whose threads the interpreter joins
at exit. A driver call that never returns (a lost GPU can block NVML for a long time) would then
keep ``q`` from ever ending the process. So a worker hands the call to a daemon thread and waits
for it, polling ``is_cancelled``; on exit the worker is cancelled, returns, and the stuck daemon
thread dies with the process. One call in flight per worker is still the rule: the worker does
not return (and the sampler does not reschedule) until the call has finished.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from textual.worker import get_current_worker

T = TypeVar("T")

POLL_S = 0.1
"""How often a waiting worker checks whether it was cancelled."""


class Cancelled(Exception):
    """The worker was cancelled (the app is quitting) while the call was still running."""


def call_cancellable(fn: Callable[[], T], *, name: str = "envsnap-call") -> T:
    """Call ``fn`` in a daemon thread and wait for its result unless the current worker is cancelled.

    Raises:
        Cancelled: the worker was cancelled first; ``fn`` may still be running.
        Exception: whatever ``fn`` raised.
    """
    worker = get_current_worker()
    done = threading.Event()
    result: list[T] = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            result.append(fn())
        except BaseException as err:  # handed to the waiting worker, which re-raises it
            error.append(err)
        finally:
            done.set()

    threading.Thread(target=target, name=name, daemon=True).start()
    while not done.wait(POLL_S):
        if worker.is_cancelled:
            raise Cancelled
    if error:
        raise error[0]
    return result[0]
