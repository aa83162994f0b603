"""No secret a workload was given reaches a run report, its JSON, or the summary (QA C4).

The secrets are fake but shaped like real ones; the workloads are real child processes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import msgspec

from envsnap.inprocess.guard.report import FallbackWarning, GuardReport
from envsnap.live.fallback import run_workload, watch_process
from envsnap.live.run_report import ProcessSummary, load_run_report, save_run_report
from envsnap.live.sampler import Sampler
from envsnap.snapshot.redact import REDACTED
from envsnap.snapshot.scrub import scrub_report
from tests.live.conftest import FAST

HF = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
ANTHROPIC = "sk-ant-api03-" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2qS5uV8xA1"
SECRET_ARGS = [f"--token={HF}", "--password", "hunter2", "--api-key", ANTHROPIC, "https://bob:pw@h/x"]
SECRETS = (HF, "hunter2", ANTHROPIC, "bob:pw@")


def _assert_clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text


def test_run_report_command_yaml_and_json_hold_no_secret(proc_root: Path, tmp_path: Path) -> None:
    report = run_workload(
        [sys.executable, "-c", "pass", *SECRET_ARGS],
        thresholds=FAST,
        sampler=Sampler([]),
        proc_root=proc_root,
    )

    assert report.command == (
        sys.executable,
        "-c",
        "pass",
        f"--token={REDACTED}",
        "--password",
        REDACTED,
        "--api-key",
        REDACTED,
        f"https://bob:{REDACTED}@h/x",
    )
    path = save_run_report(report, tmp_path / "r.yaml")
    _assert_clean(path.read_text(encoding="utf-8"))
    _assert_clean(report.to_json())
    assert json.loads(report.to_json())["command"][5] == REDACTED
    assert load_run_report(path) == report


def test_watch_records_the_process_command_line_redacted(proc_root: Path) -> None:
    # Alive until the watch has read it: a 2 s sleep had exited before a loaded CI machine got there (the
    # command of a zombie reads as None). The first tick ends the watch; the child is then killed.
    target = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", *SECRET_ARGS])
    seen = threading.Event()
    try:
        report = watch_process(
            target.pid,
            thresholds=FAST,
            sampler=Sampler([]),
            proc_root=proc_root,
            on_tick=lambda state: seen.set(),
            stop=seen,
        )
    finally:
        target.kill()
        target.wait()
    assert report.command is not None
    assert report.command[-5:] == (
        "--password",
        REDACTED,
        "--api-key",
        REDACTED,
        f"https://bob:{REDACTED}@h/x",
    )
    _assert_clean(report.to_json())
    _assert_clean(report.to_yaml())


def test_every_string_of_a_report_is_scrubbed(proc_root: Path) -> None:
    report = run_workload(
        [sys.executable, "-c", "pass"], thresholds=FAST, sampler=Sampler([]), proc_root=proc_root
    )
    name = f"x --token={HF}"
    leaky = msgspec.structs.replace(
        report,
        processes=(ProcessSummary(pid=1, name=name, first_seen_s=0, last_seen_s=0, cpu_percent_max=0),),
        evidence=("sampler error: GET https://bob:pw@h/x failed", f"AMD: {ANTHROPIC}"),
        attribution_reason=f"bearer {HF}",
    )

    clean = scrub_report(leaky)

    _assert_clean(clean.to_yaml())
    assert clean.processes[0].name == f"x --token={REDACTED}"
    assert clean.evidence == (f"sampler error: GET https://bob:{REDACTED}@h/x failed", f"AMD: {REDACTED}")
    assert clean.attribution_reason == f"bearer {REDACTED}"
    assert clean.thresholds == FAST  # numbers and structure untouched


def test_guard_reports_are_scrubbed_too() -> None:
    report = GuardReport(
        report="envsnap-guard",
        schema=1,
        expected_device="mps",
        strict=False,
        every=1,
        verdict="off-device",
        ops_total=1,
        ops_off_device=1,
        devices={"cpu": 1},
        fallback_warnings=(
            FallbackWarning(message=f"fell back; HF_TOKEN={HF}", category="UserWarning", count=1),
        ),
    )
    clean = scrub_report(report)
    assert clean.fallback_warnings[0].message == f"fell back; HF_TOKEN={REDACTED}"
    assert clean.devices == {"cpu": 1}
