"""The words of the run summary: proper plurals, and a watch report that says it is one."""

from __future__ import annotations

from envsnap.live.monitor import LiveState
from envsnap.live.run_report import DeviceSummary, ProcessSummary, RunReport, Thresholds, Tick
from envsnap.live.run_summary import RunFacts, build_report, plural
from envsnap.live.verdict import Detector, Observation
from envsnap.snapshot.yaml_text import load_yaml
from tests.fakes.workload_gpu import IDLE_T4, recorded

LIMITS = Thresholds(interval_s=1.0, cpu_busy_percent=90.0, sustain_s=10.0, gpu_idle_percent=5.0)


def _one_sample_state() -> LiveState:
    """One quiet sample of one process beside the recorded, idle Tesla T4."""
    t4 = recorded(IDLE_T4)[0]
    state = LiveState(detector=Detector(LIMITS))
    state.detector.update(
        Observation(
            t_s=1.0, cpu_percent=3.0, attribution="absent", held_utils=(), all_utils=(t4.gpu_util_percent,)
        )
    )
    state.last = Tick(t_s=1.0, cpu_percent=3.0, rss_bytes=9_000_000, threads=1)
    state.cpu_sum = state.cpu_max = 3.0
    state.rss_max = 9_000_000
    state.processes[4242] = ProcessSummary(
        pid=4242, name="python", first_seen_s=1.0, last_seen_s=1.0, cpu_percent_max=3.0
    )
    state.devices[(t4.vendor, t4.index)] = DeviceSummary(
        vendor=t4.vendor, index=t4.index, name=t4.name, util_percent_max=t4.gpu_util_percent
    )
    return state


def _facts(mode: str) -> RunFacts:
    return RunFacts(
        mode=mode,
        pid=4242,
        command=("python", "train.py"),
        started_at="2026-11-29T12:00:00.000Z",
        ended_at="2026-11-29T12:00:01.000Z",
        duration_s=1.0,
        exit_code=0 if mode == "run" else None,
    )


def test_plural() -> None:
    assert [plural(n, "sample") for n in (0, 1, 2)] == ["0 samples", "1 sample", "2 samples"]
    assert plural(1, "process", "processes") == "1 process"
    assert plural(3, "process", "processes") == "3 processes"


def test_one_sample_and_one_process_read_as_singulars() -> None:
    report = build_report(_facts("run"), _one_sample_state(), LIMITS, expect=None, has_sources=True)

    assert report.verdict == "inconclusive"
    assert report.summary.startswith("Inconclusive: in 1 sample over 1 s ")
    assert report.evidence[0].startswith("tree CPU over 1 sample: mean 3.0%")
    assert report.evidence[0].endswith("; 1 process")
    text = " ".join((report.summary, *report.evidence))
    assert "(es)" not in text
    assert "1 samples" not in text


def test_a_watch_report_says_it_is_a_watch_report() -> None:
    run = build_report(_facts("run"), _one_sample_state(), LIMITS, expect=None, has_sources=True)
    watch = build_report(_facts("watch"), _one_sample_state(), LIMITS, expect=None, has_sources=True)

    assert (run.report, watch.report) == ("envsnap-run", "envsnap-watch")
    lines = watch.to_yaml().splitlines()
    assert lines[0].startswith("# envsnap watch report (schema 1)")
    assert lines[1] == "report: envsnap-watch"


def test_watch_reports_of_the_first_release_still_load() -> None:
    # envsnap 0.1.0 wrote `report: envsnap-run` for both modes; `mode` told them apart.
    watch = build_report(_facts("watch"), _one_sample_state(), LIMITS, expect=None, has_sources=True)
    old = watch.to_yaml().replace("report: envsnap-watch", "report: envsnap-run")

    loaded = load_yaml(old, RunReport, "old.yaml")

    assert (loaded.report, loaded.mode) == ("envsnap-run", "watch")
