"""Fixes after measurement rounds 236-271 (#22, stop 25), each with the real files and a twin.

- groundeddino-vl 1.1.1 (round 268): ``ops/csrc/cuda_version.cu`` returns ``CUDART_VERSION`` (no kernel,
  launch or CUDA call) beside the deformable-attention kernels, which have a CPU twin; that file alone made
  the XPU and MPS verdicts *higher* (two levels off).
- opensoundscape 0.13.2 (round 247): ``_gpu_if_available()`` (a cuda/mps/cpu ladder) is called only under
  ``if device is None:`` in the 3,000-line ``ml/cnn.py``, on lines with no trigger token: the partial parse of
  a long module never counted those calls, so the ladder was guarded when the module was parsed whole and
  unguarded as scanned (tests/audit/test_scan_speedups.py found it).
- deep-river 0.3.4 (round 282): ``torch==2.2.2`` for Intel Macs only (a ``Requires-Dist`` platform marker)
  beside ``torch<2.6,>=2.5`` everywhere else, read as a cap on ROCm and XPU.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.scanners.python import scan_python
from envsnap.audit.scanners.python_trigger import trigger_lines
from tests.audit.conftest import audit_files, project, raised

CSRC = "groundeddino_vl/ops/csrc"


def _copy_csrc(root: Path) -> Path:
    shutil.copytree(Path(project("real-groundeddino-vl")) / CSRC, root / CSRC)
    return root


def test_a_cuda_file_without_gpu_work_beside_kernels_is_no_port(tmp_path: Path) -> None:
    scanned = scan_tree(str(_copy_csrc(tmp_path)))
    for target in ("xpu", "mps"):
        report = audit(scanned, None, parse_target(target))
        version = [f for f in report.findings if f.location.startswith(f"{CSRC}/cuda_version.cu")]
        assert [f.risk for f in version] == ["moderate"], target
        assert "left out of the build" in version[0].meaning
        # The kernels are judged where they are: the op's CPU twin.
        assert report.verdict.risk == "moderate", target
        assert not any(f.risk == "higher" for f in report.findings), target


def test_the_same_file_alone_stays_the_cuda_work(tmp_path: Path) -> None:
    # The twin: no file of the tree counts a kernel of its own (flash-attention's template instantiations,
    # whose kernels live in headers): such files are the CUDA there is, and keep their reading.
    source = Path(project("real-groundeddino-vl")) / CSRC / "cuda_version.cu"
    (tmp_path / "csrc").mkdir()
    shutil.copy(source, tmp_path / "csrc" / "cuda_version.cu")
    report = audit(scan_tree(str(tmp_path)), None, parse_target("xpu"))
    assert report.verdict.risk == "higher"


def test_a_long_modules_helper_called_only_in_guards_is_guarded_as_in_a_whole_parse() -> None:
    path = Path(project("real-opensoundscape")) / "opensoundscape/ml/cnn.py"
    data = path.read_bytes()
    text = data.decode("utf-8")
    assert len(text.splitlines()) > 400  # parsed in parts
    hot = trigger_lines(data)
    ladder = [s for s in scan_python("cnn.py", text, hot) if s.kind == "device-choices"]
    assert [(s.line, s.guarded) for s in ladder] == [(3053, True)]
    # Its two calls sit on lines the partial parse does not hold.
    calls = [
        n
        for n, line in enumerate(text.splitlines(), 1)
        if "_gpu_if_available()" in line and "def " not in line
    ]
    assert calls
    assert not set(calls) & set(hot)


# deep_river-0.3.4.dist-info/METADATA:1-3 and 19-20 (the headers between elided).
DEEP_RIVER_METADATA = (
    "Metadata-Version: 2.4\n"
    "Name: deep-river\n"
    "Version: 0.3.4\n"
    'Requires-Dist: torch==2.2.2; sys_platform == "darwin" and platform_machine == "x86_64"\n'
    'Requires-Dist: torch<2.6,>=2.5; sys_platform != "darwin" or platform_machine != "x86_64"\n'
)
METADATA = "deep_river-0.3.4.dist-info/METADATA"


def test_a_pin_for_another_platform_is_no_cap(tmp_path: Path) -> None:
    for target in ("rocm:gfx942", "xpu", "mps"):
        report = audit_files(tmp_path / target.split(":")[0], {METADATA: DEEP_RIVER_METADATA}, target)
        assert "torch-pin" not in raised(report), target
        assert report.verdict.risk == "lower", target


def test_the_same_pin_without_its_marker_still_caps(tmp_path: Path) -> None:
    # The twin: an unmarked torch==2.2.2 is what pip installs on Linux too (ROCm 5.7/6.0 wheels of torch 2.2
    # have no code for gfx942; XPU wheels start at torch 2.5).
    bare = DEEP_RIVER_METADATA.replace('; sys_platform == "darwin" and platform_machine == "x86_64"', "")
    for target in ("rocm:gfx942", "xpu"):
        report = audit_files(tmp_path / target.split(":")[0], {METADATA: bare}, target)
        assert "torch-pin" in raised(report), target
