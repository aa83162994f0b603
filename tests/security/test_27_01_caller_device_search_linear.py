"""27.1. The search for a device parameter (scan._caller_devices) is linear on hostile files.

A project with a cuda-or-cpu pick has its core Python read for ``def name(... device ...)``. The first
form, one lazy pattern from ``def name(`` to the word, restarted its scan at every ``def a(`` that never
closes: 28 s on 200 KB of them. Each parameter list is now read within a fixed window. A quadratic
search takes minutes on these files and runs into the test's timeout (a limit, not a measurement).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.file_read import MAX_TEXT_BYTES

PICK = "import torch\nd = 'cuda' if torch.cuda.is_available() else 'cpu'\nx = torch.zeros(1).to(d)\n"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("unit", ["def a(", "def a(x, device_x ", "def a(\n"])
def test_a_file_of_unclosed_definitions_is_read_in_linear_time(unit: str, tmp_path: Path) -> None:
    (tmp_path / "pick.py").write_text(PICK)
    (tmp_path / "hostile.py").write_text(unit * ((MAX_TEXT_BYTES - 64) // len(unit)))
    report = audit(scan_tree(str(tmp_path), workers=1), None, parse_target("xpu"))
    # no parameter named device anywhere: the pick stays the project's device
    assert [f.location for f in report.findings if f.rule == "device-choices"] == ["pick.py:2"]
    (tmp_path / "hostile.py").write_text(unit * ((MAX_TEXT_BYTES - 64) // len(unit)) + "device)")
    report = audit(scan_tree(str(tmp_path), workers=1), None, parse_target("xpu"))
    assert not any(f.rule == "device-choices" for f in report.findings)
