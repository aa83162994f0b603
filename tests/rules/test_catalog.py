"""The rule catalog (``check --list-rules``, the docs' table) against the rules that actually run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from envsnap import api, rules
from envsnap.rules import RULE_IDS, evaluate
from envsnap.rules.base import REGISTRY
from envsnap.rules.catalog import catalog, markdown_table
from tests.security.conftest import run_cli

REPO = Path(__file__).resolve().parents[2]
REPORTS = REPO / "tests" / "data" / "reports"


def test_the_catalog_lists_exactly_the_rules_that_run() -> None:
    ids = [doc.id for doc in catalog()]
    assert len(ids) == len(set(ids))
    assert set(ids) == set(RULE_IDS) == {i for rule in REGISTRY for i in rule.ids}


def test_every_entry_is_complete() -> None:
    for doc in catalog():
        assert doc.severities, doc.id
        assert list(doc.severities) == sorted(doc.severities, key=("error", "warning", "info").index), doc.id
        assert doc.meaning
        assert doc.fix
        assert "\n" not in doc.meaning
        assert doc.source.startswith("https://"), doc.id


def test_findings_of_the_report_corpus_stay_within_their_entry() -> None:
    entries = {doc.id: doc for doc in catalog()}
    seen: dict[str, set[str]] = {}
    for path in sorted(REPORTS.glob("*.txt")):
        for item in evaluate(api.load(path)):
            if item.id == rules.CRASH_ID:
                continue
            assert item.severity in entries[item.id].severities, (path.name, item.id, item.severity)
            seen.setdefault(item.id, set()).add(item.severity)
    assert len(seen) >= 8  # the corpus exercises most rules: this is not a vacuous check


TABLE_HEADER = "| id | severity | what it means | how to fix |"


def _tables() -> list[Path]:
    """README.md and the docs that hold the rule table (what scripts/rule_table.py rewrites)."""
    files = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    return [path for path in files if TABLE_HEADER in path.read_text(encoding="utf-8")]


def test_the_docs_table_is_generated_from_the_catalog() -> None:
    tables = _tables()
    assert tables, "no document holds the rule table"
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "rule_table.py"), "--check", *map(str, tables)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"stale rule table (run scripts/rule_table.py): {done.stdout}"
    for path in tables:
        assert markdown_table() in path.read_text(encoding="utf-8")


def test_rule_table_rewrites_a_stale_table(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    table = "| id | severity | what it means | how to fix |\n|---|---|---|---|\n| `x` | error | a | b |\n"
    doc.write_text(f"intro\n\n{table}\nafter\n")
    script = [sys.executable, str(REPO / "scripts" / "rule_table.py")]
    assert subprocess.run([*script, "--check", str(doc)], capture_output=True, check=False).returncode == 1
    assert subprocess.run([*script, str(doc)], capture_output=True, check=False).returncode == 0
    text = doc.read_text()
    assert text.startswith("intro\n\n")
    assert text.endswith("\nafter\n")
    assert markdown_table() in text
    assert "| `x` |" not in text


def test_list_rules_prints_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "check", "--list-rules", "--json")
    assert code == 0
    listed = json.loads(out)["rules"]
    assert [r["id"] for r in listed] == [doc.id for doc in catalog()]
    assert set(listed[0]) == {"id", "severities", "meaning", "fix", "source"}
    code, text, _ = run_cli(capsys, "check", "--list-rules")
    assert code == 0
    assert all(rule in text for rule in RULE_IDS)
    assert "https://pip.pypa.io/en/stable/cli/pip_check/" in text


def test_list_rules_refuses_what_it_does_not_use(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "check", "--list-rules", "snap.yaml")
    assert code == 2
    assert "--list-rules" in err
