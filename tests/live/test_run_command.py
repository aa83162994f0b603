"""``--fail-on-fallback``: which verdicts fail a run, and never over the workload's own failure."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from envsnap.commands.live_terminal import FALLBACK_EXIT, fails_on_fallback
from envsnap.live.fallback import run_workload
from envsnap.live.run_report import RunReport
from envsnap.live.sampler import Sampler
from tests.live.conftest import FAST, busy, fake_proc, sleeper


@pytest.fixture(scope="module")
def fallback_report(tmp_path_factory: pytest.TempPathFactory) -> RunReport:
    """A real run's report, judged cpu-fallback-suspected.

    The gate reads only the verdict and the exit status, so the verdict is set rather than earned
    by a CPU-bound child (test_fallback.py earns it; here that would only add timing to the test).
    """
    root = fake_proc(tmp_path_factory.mktemp("proc"))
    report = run_workload(sleeper(0.1), thresholds=FAST, sampler=Sampler([]), proc_root=root)
    assert report.exit_code == 0
    return msgspec.structs.replace(report, verdict="cpu-fallback-suspected")


def test_the_exit_code_is_outside_envsnap_and_shell_codes() -> None:
    assert FALLBACK_EXIT not in (0, 1, 2, 3, 126, 127)
    assert FALLBACK_EXIT < 128


def test_a_fallback_of_a_successful_workload_fails(fallback_report: RunReport) -> None:
    assert fails_on_fallback(fallback_report, expect=None)
    idle = msgspec.structs.replace(fallback_report, verdict="gpu-idle-while-busy")
    assert fails_on_fallback(idle, expect="cuda")


def test_the_workloads_own_failure_is_never_masked(fallback_report: RunReport) -> None:
    failed = msgspec.structs.replace(fallback_report, exit_code=1)
    assert not fails_on_fallback(failed, expect="cuda")


def test_no_accelerator_fails_only_when_one_was_expected(proc_root: Path) -> None:
    report = run_workload(busy(0.2), thresholds=FAST, sampler=Sampler([]), proc_root=proc_root)
    assert report.verdict == "no-accelerator"
    assert fails_on_fallback(report, expect="cuda")
    assert not fails_on_fallback(report, expect=None)


@pytest.mark.parametrize("verdict", ["gpu-active", "inconclusive"])
def test_other_verdicts_pass(fallback_report: RunReport, verdict: str) -> None:
    assert not fails_on_fallback(msgspec.structs.replace(fallback_report, verdict=verdict), expect="cuda")
