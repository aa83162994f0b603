"""The verdict logic alone: sequences of observations in, verdicts and windows out.

GPU utilizations are the recorded ones (Tesla T4 idle at 0%, Tesla V100 busy at 91%); the CPU
figures are the tree totals a sampler would report (100 = one core).
"""

from __future__ import annotations

from envsnap.live.run_report import Thresholds
from envsnap.live.verdict import Detector, Observation

T4_IDLE = 0.0
V100_BUSY = 91.0
LIMITS = Thresholds(interval_s=1.0, cpu_busy_percent=90.0, sustain_s=10.0, gpu_idle_percent=5.0)


def _obs(
    t_s: float, cpu: float, attribution: str, held: tuple[float | None, ...], all_: tuple[float | None, ...]
) -> Observation:
    return Observation(t_s=t_s, cpu_percent=cpu, attribution=attribution, held_utils=held, all_utils=all_)


def _feed(detector: Detector, observations: list[Observation]) -> Detector:
    for obs in observations:
        detector.update(obs)
    detector.finish()
    return detector


def test_cpu_bound_without_gpu_memory_for_the_window_is_fallback() -> None:
    detector = _feed(Detector(LIMITS), [_obs(t, 99.0, "absent", (), (V100_BUSY,)) for t in range(1, 13)])

    assert detector.verdict() == "cpu-fallback-suspected"
    assert len(detector.windows) == 1
    window = detector.windows[0]
    assert (window.start_s, window.end_s) == (0.0, 12.0)
    assert window.cpu_percent_mean == 99.0


def test_a_window_shorter_than_sustain_is_not_flagged() -> None:
    # 9 s CPU-bound, then calm: in a 30 s run the sustain window is the full 10 s.
    busy = [_obs(t, 99.0, "absent", (), (T4_IDLE,)) for t in range(1, 10)]
    calm = [_obs(t, 2.0, "absent", (), (T4_IDLE,)) for t in range(10, 31)]
    detector = _feed(Detector(LIMITS), busy + calm)

    assert detector.sustain_s == 10.0
    assert detector.windows == []
    assert detector.verdict() == "inconclusive"


def test_a_short_smoke_run_is_judged_on_half_its_length() -> None:
    # An 8 s CPU-bound run beside an idle GPU: a fixed 10 s window would call it inconclusive.
    detector = _feed(Detector(LIMITS), [_obs(t, 99.0, "absent", (), (T4_IDLE,)) for t in range(1, 9)])

    assert detector.sustain_s == 4.0
    assert detector.verdict() == "cpu-fallback-suspected"
    assert [(w.start_s, w.end_s) for w in detector.windows] == [(0.0, 8.0)]


def test_the_sustain_window_never_drops_below_three_seconds() -> None:
    detector = _feed(Detector(LIMITS), [_obs(t, 99.0, "absent", (), (T4_IDLE,)) for t in (1, 2)])

    assert detector.sustain_s == 3.0
    assert detector.windows == []
    assert detector.verdict() == "inconclusive"


def test_cpu_bound_is_judged_on_demand_under_contention() -> None:
    # A busy loop on a shared machine gets 55% of a core and waits 40% for one: it is CPU-bound.
    contended = [
        Observation(
            t_s=t,
            cpu_percent=55.0,
            cpu_wait_percent=40.0,
            attribution="absent",
            held_utils=(),
            all_utils=(T4_IDLE,),
        )
        for t in range(1, 9)
    ]
    detector = _feed(Detector(LIMITS), contended)

    assert detector.verdict() == "cpu-fallback-suspected"
    (window,) = detector.windows
    assert (window.cpu_percent_mean, window.cpu_wait_percent_mean) == (55.0, 40.0)


def test_a_sleeper_on_a_busy_machine_is_not_cpu_bound() -> None:
    # Neither running nor waiting: the machine's load says nothing about this process.
    idle = [
        Observation(
            t_s=t,
            cpu_percent=1.0,
            cpu_wait_percent=0.5,
            attribution="absent",
            held_utils=(),
            all_utils=(T4_IDLE,),
        )
        for t in range(1, 9)
    ]
    assert _feed(Detector(LIMITS), idle).verdict() == "inconclusive"


def test_one_calm_sample_breaks_the_streak() -> None:
    busy = [_obs(t, 99.0, "absent", (), (T4_IDLE,)) for t in range(1, 7)]
    calm = [_obs(7, 20.0, "absent", (), (T4_IDLE,))]
    busy_again = [_obs(t, 99.0, "absent", (), (T4_IDLE,)) for t in range(8, 14)]
    detector = _feed(Detector(LIMITS), busy + calm + busy_again)

    assert detector.windows == []


def test_preprocessing_before_a_longer_gpu_phase_is_gpu_active() -> None:
    # 12 s of CPU-bound tokenizing before the model reaches the GPU, then 30 s of GPU work.
    tokenizing = [_obs(t, 100.0, "absent", (), (T4_IDLE,)) for t in range(1, 13)]
    training = [_obs(t, 100.0, "found", (V100_BUSY,), (V100_BUSY,)) for t in range(13, 43)]
    detector = _feed(Detector(LIMITS), tokenizing + training)

    assert [w.kind for w in detector.windows] == ["cpu-fallback-suspected"]
    assert detector.active_s == 30.0
    assert detector.verdict() == "gpu-active"


def test_holding_memory_on_an_idle_gpu_while_cpu_bound() -> None:
    detector = _feed(
        Detector(LIMITS), [_obs(t, 180.0, "found", (T4_IDLE,), (T4_IDLE,)) for t in range(1, 16)]
    )

    assert detector.verdict() == "gpu-idle-while-busy"
    assert detector.windows[0].gpu_util_percent_max == T4_IDLE


def test_unknown_utilization_is_not_called_idle() -> None:
    # MIG devices report no utilization: the tree holds memory, but idleness can't be told.
    detector = _feed(Detector(LIMITS), [_obs(t, 180.0, "found", (None,), (None,)) for t in range(1, 16)])

    assert detector.windows == []
    assert detector.verdict() == "inconclusive"


def test_uncertain_attribution_with_a_busy_gpu_is_active_not_fallback() -> None:
    detector = _feed(Detector(LIMITS), [_obs(t, 100.0, "uncertain", (), (V100_BUSY,)) for t in range(1, 16)])

    assert detector.windows == []
    assert detector.verdict() == "gpu-active"


def test_uncertain_attribution_with_idle_gpus_is_fallback() -> None:
    detector = _feed(Detector(LIMITS), [_obs(t, 100.0, "uncertain", (), (T4_IDLE,)) for t in range(1, 16)])

    assert detector.verdict() == "cpu-fallback-suspected"


def test_no_device_is_no_accelerator() -> None:
    detector = _feed(Detector(LIMITS), [_obs(t, 100.0, "no-gpu", (), ()) for t in range(1, 16)])

    assert detector.verdict() == "no-accelerator"
    assert detector.verdict(has_devices=True) == "inconclusive"


def test_verdict_so_far_counts_an_open_streak() -> None:
    detector = Detector(LIMITS)
    for t in range(1, 12):
        detector.update(_obs(t, 99.0, "absent", (), (T4_IDLE,)))
    assert detector.windows == []  # not closed yet
    assert detector.verdict() == "cpu-fallback-suspected"
