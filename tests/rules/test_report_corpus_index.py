"""The report corpus index is complete and honest: every file listed, every expectation well formed.

tests/data/reports holds real reports pasted in public threads; index.yaml says, per file, what a
careful reader concludes from it (the findings the importer + rules must produce). The findings
suite relies on that index, so its shape is checked here: a typo in a rule id or a missing file
would otherwise silently shrink what the suite asserts.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from envsnap.rules import RULE_IDS

REPORTS = Path(__file__).resolve().parents[1] / "data" / "reports"
FORMATS = {
    "collect_env",
    "vllm_collect_env",
    "nvidia_smi",
    "nvidia_smi_q",
    "rocm_smi",
    "amd_smi",
    "pip_list",
    "pip_freeze",
    "conda_list",
    "torch_warning",
    "traceback",
    "prose",
    # round 2 (issue 21): what people paste besides the formats above
    "app_log",
    "log_prefixed",
    "kernel_log",
    "library_warning",
    "pip_show",
    "pip_resolver",
    "pip_install",
    "ds_report",
    "sglang_check_env",
    "jax_env_info",
    "detectron2_collect_env",
    "mmdet_env_info",
    "key_value_prose",
    "python_session",
    "nvcc",
}
CLASSES = {
    "healthy",
    "format-only",
    "cpu-only-build",
    "driver-too-old",
    "arch-not-in-build",
    "rocm-gfx",
    "vendor-mismatch",
    "nvcc-torch",
    "companion",
    "duplicates",
    "shadowing",
    "nvml-mismatch",
    "visible-devices",
    "onnxruntime-cuda",
    "bitsandbytes",
    "no-driver",
    "gpu-health",
    "unknown",
}
KEYS = {
    "file",
    "formats",
    "source",
    "era",
    "class",
    "cause",
    "root_cause",
    "expected",
    "evidence_visible",
    "healthy",
}
OPTIONAL = {"truncated", "note", "paste_class", "heldout", "batch"}


def _entries() -> list[dict[str, Any]]:
    loaded = yaml.safe_load((REPORTS / "index.yaml").read_text(encoding="utf-8"))
    entries = loaded["reports"]
    assert isinstance(entries, list)
    return entries


ENTRIES = _entries()


def test_every_report_file_is_indexed_once_and_every_entry_has_its_file() -> None:
    listed = Counter(entry["file"] for entry in ENTRIES)
    assert [name for name, count in listed.items() if count > 1] == []
    on_disk = {path.name for path in REPORTS.glob("*.txt")}
    assert set(listed) == on_disk


def test_corpus_size_and_coverage() -> None:
    assert len(ENTRIES) >= 60
    assert sum(1 for entry in ENTRIES if entry["healthy"]) >= 15
    classes = {entry["class"] for entry in ENTRIES}
    assert CLASSES - {"format-only"} <= classes
    formats = {fmt for entry in ENTRIES for fmt in entry["formats"]}
    assert formats == FORMATS
    years = {int(entry["era"][:4]) for entry in ENTRIES}
    assert min(years) <= 2018
    assert max(years) >= 2026


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["file"] for entry in ENTRIES])
def test_entry_is_well_formed(entry: dict[str, Any]) -> None:
    assert KEYS <= set(entry) <= KEYS | OPTIONAL
    assert entry["formats"]
    assert set(entry["formats"]) <= FORMATS
    assert entry["class"] in CLASSES
    assert str(entry["source"]).startswith("https://github.com/")
    assert entry["root_cause"].strip()
    ids = []
    for finding in entry["expected"]:
        assert set(finding) == {"id", "severity"}
        assert finding["id"] in RULE_IDS, finding["id"]
        assert finding["severity"] in {"error", "warning", "info"}
        ids.append(finding["id"])
    assert len(ids) == len(set(ids))
    if entry["cause"] is not None:
        assert entry["cause"] in RULE_IDS
        # evidence_visible says whether the text alone supports the thread's cause
        assert entry["evidence_visible"] == (entry["cause"] in ids)
    if entry["healthy"]:
        assert entry["cause"] is None
        assert all(finding["severity"] != "error" for finding in entry["expected"])


def test_reports_are_text_as_pasted() -> None:
    for path in REPORTS.glob("*.txt"):
        text = path.read_text(encoding="utf-8")
        assert text.strip(), path.name
        assert "\r" not in text, path.name
