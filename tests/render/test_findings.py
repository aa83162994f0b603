"""The findings report (Rich text) and its JSON shape."""

from __future__ import annotations

import io
import json

from rich.console import Console

from envsnap.render.findings import findings_data, findings_json, render_findings, summary_line
from envsnap.snapshot.model import Evidence, Finding

ERROR = Finding(
    id="cpu-only-build-on-gpu-host",
    severity="error",
    title="torch 2.13.0+cpu is a CPU-only build on a host with 2× NVIDIA H100 80GB HBM3",
    evidence=(
        Evidence(path="frameworks.torch.cuda", value=None),
        Evidence(path="frameworks.torch.arch_list", value=[]),
    ),
    fix="Reinstall torch built for CUDA: `pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cu130`.",
    source="https://pytorch.org/get-started/locally/",
)
INFO = Finding(
    id="cuda-toolkit-without-driver",
    severity="info",
    title="CUDA toolkit 13.0 is installed but there is no NVIDIA driver",
    evidence=(Evidence(path="toolkits.cuda.version", value="13.0"),),
    fix="Nothing to do on a build machine.",
)


def _text(renderable: object, width: int = 200) -> str:
    out = io.StringIO()
    Console(file=out, width=width, no_color=True, highlight=False).print(renderable)
    return out.getvalue()


def test_grouped_by_severity_with_evidence_fix_and_source() -> None:
    text = _text(render_findings([ERROR, INFO], "sha256:81cfa967d76d0123"))
    assert text.index("Errors (1)") < text.index("Info (1)")
    assert "✗ cpu-only-build-on-gpu-host" in text
    assert "frameworks.torch.cuda = null (absent)" in text
    assert "frameworks.torch.arch_list = [] (empty)" in text
    assert "pip install torch==2.13.0 --index-url" in text
    assert "`" not in text
    assert "source   https://pytorch.org/get-started/locally/" in text
    assert "Warnings" not in text
    assert text.rstrip().endswith("1 error, 0 warnings, 1 info · sha256:81cfa967d76d")


def test_clean_report_is_one_line() -> None:
    text = _text(render_findings([], "sha256:81cfa967d76d0123"))
    assert (
        text.strip()
        == "no findings: nothing wrong with this stack that envsnap checks for · sha256:81cfa967d76d"
    )
    assert summary_line([]) == "no findings: nothing wrong with this stack that envsnap checks for"


def test_json_shape_has_every_key() -> None:
    data = json.loads(findings_json([ERROR, INFO], None))
    assert list(data) == ["findings", "fingerprint"]
    assert [list(f) for f in data["findings"]] == [
        ["id", "severity", "title", "evidence", "fix", "source"]
    ] * 2
    assert data["findings"][1]["source"] is None
    assert data["findings"][0]["evidence"][0] == {"path": "frameworks.torch.cuda", "value": None}
    assert findings_data([], "sha256:x") == {"findings": [], "fingerprint": "sha256:x"}
