"""Cross-machine shape: a bundle recorded here, verified by another interpreter in a second venv.

The second venv is ``ENVSNAP_OTHER_TORCH_PYTHON`` when set (an interpreter with another torch
version and envsnap installed: docs/usage/record-verify.md says how the 2.14.1 check was made),
else one built here with this torch version from the configured index (what CI can afford: the CUDA
builds of other versions bring gigabytes of NVIDIA wheels). Either way the verify runs in a separate process,
from the bundle's files only, and its report is read back here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

import envsnap
from envsnap.inprocess.verify.report import load_report
from tests.inprocess.record_models import make_input, make_net

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]

VERIFY = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[3])
    import envsnap
    from tests.inprocess.record_models import make_net
    net = make_net()
    with envsnap.verify(sys.argv[1], model=net, environment="fast", slow=None) as v:
        net(v.inputs)
    open(sys.argv[2], "w").write(v.report.to_yaml())
    """
)


@pytest.fixture(scope="module")
def other_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    given = os.environ.get("ENVSNAP_OTHER_TORCH_PYTHON")
    if given:
        return given
    root = tmp_path_factory.mktemp("other-venv")
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=300)
    python = str(root / "bin" / "python")
    version = torch.__version__.split("+")[0]
    subprocess.run(
        [
            python,
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            f"torch=={version}",
            "-e",
            str(REPO),
        ],
        check=True,
        timeout=1200,
    )
    return python


def test_bundle_recorded_here_verifies_in_another_venv(other_python: str, tmp_path: Path) -> None:
    net = make_net()
    bundle = tmp_path / "here.zip"
    with envsnap.record(bundle, model=net, environment="fast", repeats=2, warmup=0):
        net(make_input())
    report_path = tmp_path / "there.yaml"
    done = subprocess.run(
        [other_python, "-c", VERIFY, str(bundle), str(report_path), str(REPO)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = load_report(report_path.read_text(), str(report_path))
    other_torch = subprocess.run(
        [other_python, "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert report.reference.torch_version == torch.__version__
    assert report.target.torch_version == other_torch
    assert all(m.status != "missing" for m in report.modules), "every recorded module call was replayed"
    assert report.modules[-1].key == "Net#0"
    if report.verdict == "fail":  # numerics may move across versions; then the birth is named
        assert report.first_divergence is not None
    else:
        assert report.verdict in ("pass", "pass-with-limitations")
    if other_torch != torch.__version__:
        assert any("torch" in change.path for change in report.environment)
