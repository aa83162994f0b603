"""`envsnap import nvidia-smi-xml` over real `nvidia-smi -q -x` captures (tests/data/nvidia)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from envsnap.importers import parse_report
from envsnap.snapshot.finalize import finalize
from tests.conftest import DATA

CAPTURES = sorted((DATA / "nvidia").glob("*.xml"))


@pytest.mark.parametrize("path", CAPTURES, ids=[p.stem for p in CAPTURES])
def test_every_capture_imports_with_its_own_values(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    root = ET.fromstring(text[text.index("<nvidia_smi_log") :])
    snap = finalize(parse_report("nvidia-smi-xml", text, str(path), captured_at="2026-11-29T12:00:00Z"))
    assert snap.meta.origin
    assert (snap.meta.origin.kind, snap.meta.origin.format) == ("import", "nvidia-smi-xml")
    assert snap.accelerators
    assert snap.accelerators.nvidia
    nvidia = snap.accelerators.nvidia
    assert nvidia.source == "import"
    assert nvidia.driver_version == root.findtext("driver_version")
    names = sorted(gpu.findtext("product_name") or "" for gpu in root.findall("gpu"))
    assert sorted(d.name or "" for d in nvidia.devices or ()) == names
    assert snap.telemetry is not None
    assert len(snap.telemetry.devices) == len(names)
    # Only what nvidia-smi says: no host, no packages, no framework is invented.
    assert (snap.host, snap.packages, snap.frameworks) == (None, None, None)
