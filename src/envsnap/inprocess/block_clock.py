"""The record block's own model calls as timing samples: their wall time less the hooks' own.

``envsnap.record`` times the model by replaying the recorded calls after the block (measure.py).
Each replay costs a whole forward, and timing needs more than one sample (the reference's spread,
issue 23 item 9). The block has already run the model once: timed from the end of the top-level
call's pre-hook to the start of its post-hook, less the time spent inside envsnap's hooks of the
modules it called (stats, host copies, input tracing), it is a forward run as a replay runs it,
plus only what could not be subtracted (the dispatch modes' per-op Python, a few microseconds an
op): an estimate that errs slow, never fast. The device is synchronized on entering and leaving
each hook, so kernels queued by the forward count as forward time and the hooks' own kernels as
hook time.

A sample is taken only from calls made under the replays' conditions: grad disabled (as
``time_replays`` runs them), and no environment probe running beside the call (``busy``: the
probes' threads take the interpreter lock and the cores from it). measure.time_replays
(``prior``) counts it only when the first replay agrees with it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import torch

from envsnap.inprocess.measure import synchronize


class BlockClock:
    """Per top-level call index, its wall time less the hooks' (``samples``)."""

    def __init__(
        self,
        device: str,
        busy: Callable[[], bool] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.device = device
        self.clock = clock
        self.busy = busy
        """Whether something else runs beside the block now (the environment probes)."""
        self.hooks_s = 0.0
        """Seconds spent inside the hooks so far."""
        self.samples: dict[int, float] = {}
        self._top: tuple[float, float, bool] | None = None

    def enter(self) -> float:
        """A hook starts: the device's queued work (the forward's) is waited for first."""
        synchronize(self.device)
        return self.clock()

    def leave(self, started: float) -> None:
        """A hook that ``enter`` returned ``started`` for ends (its own device work included)."""
        synchronize(self.device)
        self.hooks_s += self.clock() - started

    def top_started(self) -> None:
        """The top-level call's forward starts now (its pre-hook has just finished)."""
        disturbed = torch.is_grad_enabled() or (self.busy is not None and self.busy())
        self._top = (self.clock(), self.hooks_s, disturbed)

    def top_finished(self, index: int, at: float, hooks_at: float) -> None:
        """Top-level call ``index``'s forward ended at ``at`` (its post-hook's ``enter``), when
        the hooks had taken ``hooks_at`` seconds in all (its own post-hook not yet counted)."""
        if self._top is None:
            return
        began, hooks_before, disturbed = self._top
        self._top = None
        if disturbed or (self.busy is not None and self.busy()):  # autograd, or probes beside it
            self.samples.pop(index, None)
            return
        self.samples[index] = max((at - began) - (hooks_at - hooks_before), 0.0)

    def top_failed(self, index: int) -> None:
        """Top-level call ``index`` raised: no sample (its index goes to the next call)."""
        self._top = None
        self.samples.pop(index, None)
