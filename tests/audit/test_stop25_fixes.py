"""Fixes after measurement rounds 236-271 (#22, stop 25), each with the real files and a twin.

- groundeddino-vl 1.1.1 (round 268): ``ops/csrc/cuda_version.cu`` returns ``CUDART_VERSION`` (no kernel,
  launch or CUDA call) beside the deformable-attention kernels, which have a CPU twin; that file alone made
  the XPU and MPS verdicts *higher* (two levels off).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from envsnap.audit import audit, parse_target, scan_tree
from tests.audit.conftest import project

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
