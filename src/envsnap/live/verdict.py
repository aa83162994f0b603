"""The process-level verdict: is a workload using its GPU, or quietly running on the CPU?

Pure logic over samples, fed one at a time (so the live status line can show the verdict so far
and a week-long run needs no growing memory). Each sample is classified:

- **suspicious** when the tree is CPU-bound and either
  holds no GPU memory while the driver can tell (attribution ``absent``), or the GPU it holds —
  or, when ownership can't be told, every GPU — sits idle (``gpu_idle_percent``).
  Holding memory on an idle GPU is ``gpu-idle-while-busy``; otherwise ``cpu-fallback-suspected``.
- **active** when a GPU the tree holds is above idle (or, when ownership can't be told, any GPU).

*CPU-bound* is judged on what the tree asked for, not only on what it got: its CPU time plus the
time its threads spent runnable but waiting for a core (the run queue delay the kernel counts in
``/proc/<pid>/task/<tid>/schedstat``), at or above ``cpu_busy_percent`` (100 = one core). A busy
loop on a shared 2-core machine may *get* 55% of a core, but it waits the other 45%: it is
CPU-bound all the same, while a process that sleeps neither runs nor waits.

Suspicious samples in an unbroken row make a window when they last the *sustain window*: the
larger of ``MIN_SUSTAIN_S`` and half the run so far, capped at ``sustain_s``, so an 8 s smoke run
is judged on 4 s and a long run on ``sustain_s``. Short smoke runs are exactly when a fallback
must be caught, and a fixed 10 s window would make every run under 10 s inconclusive. The verdict is
the kind of the longest window when windows cover at least as much time as active samples do
(a CPU-bound tokenization phase before a long GPU phase is not a fallback), else ``gpu-active``
if the GPU was ever active, else ``inconclusive``. No device at all is ``no-accelerator``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from envsnap.live.run_report import Thresholds, Verdict, Window, WindowKind

MIN_SUSTAIN_S = 3.0
"""The shortest sustain window a run is judged on (a shorter ``sustain_s`` given by hand wins)."""


def sustain_window(thresholds: Thresholds, duration_s: float) -> float:
    """How long a suspicious state must last in a run of ``duration_s``: half the run, within bounds."""
    return min(thresholds.sustain_s, max(MIN_SUSTAIN_S, duration_s / 2))


@dataclass(frozen=True)
class Observation:
    """What the verdict needs from one sample."""

    t_s: float
    cpu_percent: float
    attribution: str
    """As in run_report.Attribution."""
    held_utils: tuple[float | None, ...]
    """Utilization of each device the tree holds memory on."""
    all_utils: tuple[float | None, ...]
    """Utilization of every (expected-vendor) device."""
    cpu_wait_percent: float | None = None
    """Run-queue wait of the tree's threads (100 = one thread waiting the whole interval); None: unknown."""

    @property
    def cpu_demand_percent(self) -> float:
        """CPU the tree got plus CPU it waited for: what it would have used on an idle machine."""
        return self.cpu_percent + (self.cpu_wait_percent or 0.0)


@dataclass
class _Streak:
    kind: WindowKind
    start_s: float
    last_s: float
    cpu_sum: float = 0.0
    wait_sum: float = 0.0
    waits: int = 0
    samples: int = 0
    gpu_max: float | None = None


def _idle(utils: tuple[float | None, ...], idle_percent: float) -> bool:
    """All devices with a known utilization are idle, and at least one is known."""
    known = [u for u in utils if u is not None]
    return bool(known) and all(u <= idle_percent for u in known)


def _busy(utils: tuple[float | None, ...], idle_percent: float) -> bool:
    return any(u is not None and u > idle_percent for u in utils)


@dataclass
class Detector:
    """Consumes observations in time order and says the verdict so far."""

    thresholds: Thresholds
    candidates: list[Window] = field(default_factory=list)
    """Suspicious stretches long enough for the shortest sustain window; ``windows`` filters them."""
    active_s: float = 0.0
    samples: int = 0
    saw_device: bool = False
    last_s: float = 0.0
    _streak: _Streak | None = None

    @property
    def sustain_s(self) -> float:
        """The sustain window for the run so far."""
        return sustain_window(self.thresholds, self.last_s)

    @property
    def windows(self) -> list[Window]:
        """The stretches that lasted the sustain window of the run so far."""
        need = self.sustain_s
        return [w for w in self.candidates if w.end_s - w.start_s + 1e-9 >= need]

    def classify(self, obs: Observation) -> WindowKind | None:
        """The suspicious kind of one sample, or None."""
        limits = self.thresholds
        if not obs.all_utils or obs.cpu_demand_percent < limits.cpu_busy_percent:
            return None
        if obs.attribution == "found":
            return "gpu-idle-while-busy" if _idle(obs.held_utils, limits.gpu_idle_percent) else None
        if obs.attribution == "absent" or _idle(obs.all_utils, limits.gpu_idle_percent):
            return "cpu-fallback-suspected"
        return None

    def is_active(self, obs: Observation) -> bool:
        """Whether the tree's GPU (or, when ownership is unknown, any GPU) did work."""
        idle = self.thresholds.gpu_idle_percent
        if obs.attribution == "found":
            return _busy(obs.held_utils, idle)
        if obs.attribution in ("uncertain", "unavailable"):
            return _busy(obs.all_utils, idle)
        return False

    def update(self, obs: Observation) -> None:
        """Add one sample."""
        self.samples += 1
        self.last_s = max(self.last_s, obs.t_s)
        self.saw_device = self.saw_device or bool(obs.all_utils)
        interval = self.thresholds.interval_s
        if self.is_active(obs):
            self.active_s += interval
        kind = self.classify(obs)
        streak = self._streak
        if streak is not None and streak.kind != kind:
            self._close()
            streak = None
        if kind is None:
            return
        if streak is None:
            streak = self._streak = _Streak(kind=kind, start_s=obs.t_s, last_s=obs.t_s)
        streak.last_s = obs.t_s
        streak.cpu_sum += obs.cpu_percent
        streak.samples += 1
        if obs.cpu_wait_percent is not None:
            streak.wait_sum += obs.cpu_wait_percent
            streak.waits += 1
        utils = [
            u for u in (obs.held_utils if kind == "gpu-idle-while-busy" else obs.all_utils) if u is not None
        ]
        if utils:
            streak.gpu_max = max([*utils, streak.gpu_max or 0.0])

    def _close(self) -> None:
        streak, self._streak = self._streak, None
        if streak is None:
            return
        # A sample stands for the interval before it, so a streak of n samples covers n intervals.
        end_s = streak.last_s
        start_s = streak.start_s - self.thresholds.interval_s
        shortest = min(self.thresholds.sustain_s, MIN_SUSTAIN_S)
        if end_s - start_s + 1e-9 >= shortest:
            self.candidates.append(
                Window(
                    kind=streak.kind,
                    start_s=round(max(start_s, 0.0), 3),
                    end_s=round(end_s, 3),
                    cpu_percent_mean=round(streak.cpu_sum / streak.samples, 1),
                    cpu_wait_percent_mean=round(streak.wait_sum / streak.waits, 1) if streak.waits else None,
                    gpu_util_percent_max=streak.gpu_max,
                )
            )

    def finish(self) -> None:
        """Close the streak still open at the end of the run."""
        self._close()

    def verdict(self, *, has_devices: bool | None = None) -> Verdict:
        """The verdict from the samples seen so far (an open streak counts as if it ended now).

        Args:
            has_devices: whether the sampler has any device at all; defaults to "seen in a sample".
        """
        if not (self.saw_device if has_devices is None else has_devices):
            return "no-accelerator"
        windows = list(self.windows)
        streak = self._streak
        if (
            streak is not None
            and streak.last_s - streak.start_s + self.thresholds.interval_s >= self.sustain_s
        ):
            windows.append(
                Window(kind=streak.kind, start_s=streak.start_s, end_s=streak.last_s, cpu_percent_mean=0.0)
            )
        flagged_s = sum(w.end_s - w.start_s for w in windows)
        if windows and flagged_s >= self.active_s:
            return max(windows, key=lambda w: w.end_s - w.start_s).kind
        if self.active_s > 0:
            return "gpu-active"
        return "inconclusive"
