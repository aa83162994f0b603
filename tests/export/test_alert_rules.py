"""The example alerting rules (docs/alerts/): valid for promtool, and firing on envsnap's real output.

``promtool check rules`` and ``promtool test rules`` run on the shipped files; then the rules are
tested against series taken from a real ``envsnap export prometheus`` of a drifted node (a driver
downgrade from the known-good), so the alert is proven against what envsnap writes, not against
hand-typed series: a renamed metric or label would make it stop firing here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from envsnap.compare.diff import diff
from envsnap.render.prometheus import Drift, exposition, snapshot_families
from envsnap.snapshot.model import Snapshot
from tests.export.engine import missing
from tests.export.helpers import node, promtool, samples, with_driver

pytestmark = pytest.mark.skipif(missing("promtool") is not None, reason=str(missing("promtool")))

ALERTS = Path(__file__).resolve().parents[2] / "docs" / "alerts"
RULES = ALERTS / "envsnap.rules.yml"
INSTANCE = {"instance": "gpu01:9401", "job": "envsnap"}


def test_promtool_check_rules() -> None:
    done = promtool("check", "rules", RULES)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS: 5 rules found" in done.stdout


def test_promtool_test_rules_on_the_shipped_unit_tests() -> None:
    done = promtool("test", "rules", ALERTS / "envsnap.rules.test.yml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def _series_of(text: str) -> list[dict[str, str]]:
    """Input series for promtool: every sample of the exposition, held for an hour."""
    result = []
    for sample in samples(text):
        labels = {**dict(sample.labels), **INSTANCE}
        selector = ",".join(f"{name}={json.dumps(value)}" for name, value in sorted(labels.items()))
        result.append({"series": f"{sample.name}{{{selector}}}", "values": f"{sample.value:g}x60"})
    return result


def _rule(name: str) -> dict[str, Any]:
    for group in yaml.safe_load(RULES.read_text())["groups"]:
        for rule in group["rules"]:
            if rule.get("alert") == name:
                return dict(rule)
    raise AssertionError(f"no alert {name} in {RULES}")


def _expanded(template: str, labels: dict[str, str], value: float) -> str:
    """The rule's annotation as Prometheus renders it (only the two template forms the rules use)."""
    text = re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels[m.group(1)], template)
    return text.replace("{{ $value }}", f"{value:g}")


def _expected(name: str, labels: dict[str, str], value: float) -> dict[str, Any]:
    rule = _rule(name)
    return {
        "exp_labels": {**labels, **rule["labels"]},
        "exp_annotations": {key: _expanded(text, labels, value) for key, text in rule["annotations"].items()},
    }


def _run_rule_test(tmp_path: Path, text: str, alerts: list[dict[str, Any]]) -> None:
    test = {
        "rule_files": [str(RULES)],
        "evaluation_interval": "1m",
        "tests": [{"interval": "1m", "input_series": _series_of(text), "alert_rule_test": alerts}],
    }
    path = tmp_path / "generated.test.yml"
    path.write_text(yaml.safe_dump(test, sort_keys=False))
    done = promtool("test", "rules", path)
    assert done.returncode == 0, done.stdout + done.stderr


def _export(known: Snapshot, today: Snapshot) -> str:
    return exposition(snapshot_families(today, drift=Drift(diff(known, today), known.fingerprint)))


def test_a_drifted_node_fires_the_drift_and_finding_alerts(tmp_path: Path) -> None:
    known = node()
    today = with_driver(known, "550.54.15")
    text = _export(known, today)
    breaking = sum(
        s.value
        for s in samples(text)
        if s.name == "envsnap_drift_changes" and s.labels["impact"] == "breaking"
    )
    assert breaking > 0
    finding = {**INSTANCE, "id": "cpu-only-build-on-gpu-host"}
    _run_rule_test(
        tmp_path,
        text,
        [
            # pending for the rule's `for: 10m`, then firing
            {"eval_time": "5m", "alertname": "EnvsnapDriftedFromKnownGood", "exp_alerts": []},
            {"eval_time": "15m", "alertname": "EnvsnapDriftedFromKnownGood",
             "exp_alerts": [_expected("EnvsnapDriftedFromKnownGood", INSTANCE, breaking)]},
            {"eval_time": "15m", "alertname": "EnvsnapErrorFinding",
             "exp_alerts": [_expected("EnvsnapErrorFinding", finding, 1)]},
            {"eval_time": "15m", "alertname": "EnvsnapProbeFailed",
             "exp_alerts": []},
        ],
    )  # fmt: skip


def test_the_known_good_node_itself_fires_no_drift_alert(tmp_path: Path) -> None:
    known = node()
    text = _export(known, known)
    _run_rule_test(
        tmp_path, text, [{"eval_time": "15m", "alertname": "EnvsnapDriftedFromKnownGood", "exp_alerts": []}]
    )


def test_a_failed_probe_fires_after_its_delay(tmp_path: Path) -> None:
    """The helpers' node records the frameworks probe as failed (a timeout)."""
    text = exposition(snapshot_families(node()))
    labels = {**INSTANCE, "probe": "frameworks"}
    _run_rule_test(
        tmp_path,
        text,
        [
            {"eval_time": "20m", "alertname": "EnvsnapProbeFailed", "exp_alerts": []},
            {
                "eval_time": "35m",
                "alertname": "EnvsnapProbeFailed",
                "exp_alerts": [_expected("EnvsnapProbeFailed", labels, 1)],
            },
        ],
    )
