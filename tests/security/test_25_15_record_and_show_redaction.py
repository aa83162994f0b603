"""25.15. Secrets never leave in a bundle or a report shown again.

``envsnap.record`` stored non-tensor call arguments and tap names verbatim (so ``verify inspect
--json`` printed a token passed as an argument), and ``verify show`` / ``fleet show`` printed what
an edited report or index held. A bundle is written redacted; what is read back is redacted again
before it is shown, in every format.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from torch import nn

import envsnap
from tests.fakes.diff_snapshots import make
from tests.inprocess.record_models import make_input, make_net
from tests.security.conftest import run_cli

TOKEN = "hf_" + "Zq9" * 11 + "x"  # the hf_ + 34 shape
PASSWORD_URL = "https://bot:s3cretPassw0rd@registry.example/v2"


class Keyed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x: torch.Tensor, note: str = "", options: dict[str, str] | None = None) -> torch.Tensor:
        out: torch.Tensor = self.fc(x)
        return out


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("secret") / "b.envsnap"
    net = Keyed()
    with envsnap.record(path, model=net, environment="none", repeats=1, warmup=0) as rec:
        net(make_input(), note=f"token {TOKEN}", options={"api_key": "plainvalue123", "url": PASSWORD_URL})
        rec.tap(f"auth {TOKEN}", torch.ones(2))
    return path


def _secrets(text: str) -> list[str]:
    return [s for s in (TOKEN, "s3cretPassw0rd", "plainvalue123") if s in text]


def test_the_bundle_on_disk_holds_no_secret(bundle: Path) -> None:
    for member in bundle.iterdir():
        text = member.read_bytes().decode("utf-8", "replace")
        assert _secrets(text) == [], member.name


def test_verify_inspect_shows_no_secret(bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["verify", "inspect", str(bundle)], ["verify", "inspect", str(bundle), "--json"]):
        code, out, err = run_cli(capsys, *argv)
        assert code == 0, err
        assert _secrets(out) == []


def test_verify_inspect_redacts_an_old_bundle_that_holds_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import hashlib
    import shutil

    path = tmp_path / "old.envsnap"
    net = make_net()
    with envsnap.record(path, model=net, environment="none", repeats=1, warmup=0):
        net(make_input())
    copy = tmp_path / "edited"
    shutil.copytree(path, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["notes"] = [*manifest.get("notes", []), f"pushed with {TOKEN}"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert hashlib.sha256(
        (copy / "manifest.json").read_bytes()
    ).hexdigest()  # the manifest lists no hash of itself
    for argv in (["verify", "inspect", str(copy)], ["verify", "inspect", str(copy), "--json"]):
        code, out, err = run_cli(capsys, *argv)
        assert code == 0, err
        assert _secrets(out) == []


def test_verify_show_redacts_the_report(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    net = make_net()
    folder = tmp_path / "plain.envsnap"
    with envsnap.record(folder, model=net, environment="none", repeats=1, warmup=0):
        net(make_input())
    with envsnap.verify(folder, model=net, environment="none", slow=None) as v:
        net(v.inputs)
    text = v.report.to_yaml()
    report = tmp_path / "report.yaml"
    report.write_text(text.replace("reasons:\n", f"reasons:\n- 'pushed to {PASSWORD_URL} with {TOKEN}'\n", 1))
    assert TOKEN in report.read_text()
    for fmt in (["--json"], ["--format", "markdown"], []):
        code, out, err = run_cli(capsys, "verify", "show", str(report), *fmt)
        assert code in (0, 1), err
        assert _secrets(out) == [], fmt


def test_fleet_show_redacts_the_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from envsnap.fleet.index import FleetIndex, NodeRecord, write_index
    from envsnap.snapshot import store

    store.save(make(), tmp_path / "n1.yaml")
    index = FleetIndex(
        collected_at="2026-12-01T00:00:00Z",
        transport="ssh",
        nodes=(
            NodeRecord(name="n1", status="ok", file="n1.yaml"),
            NodeRecord(name="n2", status="probe-failed", reason="clean"),
        ),
    )
    write_index(tmp_path, index)
    path = tmp_path / "fleet.yaml"
    path.write_text(path.read_text().replace("clean", f"login failed for {PASSWORD_URL} {TOKEN}"))
    for fmt in ("text", "json", "markdown"):
        code, out, err = run_cli(capsys, "fleet", "show", str(tmp_path), "--format", fmt)
        assert code in (0, 1), err
        assert _secrets(out + err) == [], fmt
