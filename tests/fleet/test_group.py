"""Grouping a fleet folder: majority reference, per-group differences and findings, hostile folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envsnap.cli import run
from envsnap.errors import BadInput
from envsnap.fleet.group import check_against, group, load_fleet
from envsnap.fleet.index import FleetIndex, NodeRecord, write_index
from envsnap.snapshot import store
from tests.fakes.diff_snapshots import T4, make, with_nvidia


def _fleet(folder: Path, nodes: dict[str, object], failed: dict[str, str] | None = None) -> Path:
    records = []
    for name, snapshot in nodes.items():
        store.save(snapshot, folder / f"{name}.yaml")  # type: ignore[arg-type]
        records.append(NodeRecord(name=name, status="ok", file=f"{name}.yaml"))
    for name, reason in (failed or {}).items():
        records.append(NodeRecord(name=name, status="unreachable", reason=reason))
    write_index(
        folder, FleetIndex(collected_at="2026-12-01T00:00:00Z", transport="ssh", nodes=tuple(records))
    )
    return folder


def test_the_largest_group_is_the_reference_and_the_odd_node_leads(tmp_path: Path) -> None:
    good = make(hostname="gpu")
    odd = with_nvidia(make(hostname="gpu", gpus=T4), driver_version="515.105.01")
    _fleet(tmp_path, {"gpu01": good, "gpu02": good, "gpu03": odd, "gpu10": good}, {"gpu04": "refused"})
    loaded = load_fleet(tmp_path)
    groups = group(loaded.nodes)
    assert groups.groups[0].nodes == ("gpu01", "gpu02", "gpu10")  # natural order: gpu10 last
    assert groups.minorities[0].nodes == ("gpu03",)
    assert groups.minorities[0].impact == "breaking"  # another GPU model
    assert [c.impact for c in groups.minorities[0].changes] == sorted(
        (c.impact for c in groups.minorities[0].changes), key=["breaking", "notable", "minor"].index
    )
    assert [r.name for r in groups.failed] == ["gpu04"]
    assert not groups.uniform
    assert not groups.tie


def test_a_tie_takes_the_first_nodes_group_and_says_so(tmp_path: Path) -> None:
    a, b = make(hostname="x"), make(hostname="x", variables={"NCCL_P2P_DISABLE": "1"})
    _fleet(tmp_path, {"n1": b, "n2": a, "n3": a, "n4": b})
    groups = group(load_fleet(tmp_path).nodes)
    assert groups.tie
    assert groups.groups[0].nodes == ("n1", "n4")


def test_uniform_fleet_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fleet(tmp_path, {"n1": make(), "n2": make(hostname="other")})  # host identity is not the stack
    assert run(["fleet", "show", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("uniform: 2 of 2 nodes share sha256:")


def test_a_plain_folder_of_snapshots_is_a_fleet_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store.save(make(), tmp_path / "a.yaml")
    store.save(make(variables={"CUDA_VISIBLE_DEVICES": "1"}), tmp_path / "b.yaml")
    store.save(make(), tmp_path / "c.yaml")
    assert run(["diff", str(tmp_path), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["groups"][1]["nodes"] == ["b"]


def test_check_against_diffs_each_fingerprint_once(tmp_path: Path) -> None:
    good = make()
    _fleet(tmp_path, {"n1": good, "n2": make(variables={"NCCL_DEBUG": "INFO"})}, {"n3": "down"})
    checks = check_against(load_fleet(tmp_path).nodes, good)
    assert [c.record.name for c in checks] == ["n1", "n2", "n3"]
    assert checks[0].changes == ()
    assert checks[1].changes is not None
    assert "environment.variables.NCCL_DEBUG" in {c.path for c in checks[1].changes}
    assert checks[2].changes is None  # not collected: never "matches"


# ---------------------------------------------------------------------------- hostile folders


def test_an_index_pointing_outside_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "fleet.yaml").write_text(
        "fleet: 1\ncollected_at: x\ntransport: ssh\nnodes:\n- {name: n1, status: ok, file: ../secret.yaml}\n"
    )
    with pytest.raises(BadInput, match="refusing node file name"):
        load_fleet(tmp_path)
    (tmp_path / "fleet.yaml").write_text(
        "fleet: 1\ncollected_at: x\ntransport: ssh\nnodes:\n- {name: n1, status: ok, file: /etc/passwd}\n"
    )
    assert run(["fleet", "show", str(tmp_path)]) == 2


def test_index_aliases_and_newer_formats_are_refused(tmp_path: Path) -> None:
    (tmp_path / "fleet.yaml").write_text("fleet: 1\ncollected_at: &a x\ntransport: *a\n")
    with pytest.raises(BadInput, match="anchors are not allowed"):
        load_fleet(tmp_path)
    (tmp_path / "fleet.yaml").write_text("fleet: 9\ncollected_at: x\ntransport: ssh\n")
    with pytest.raises(BadInput, match="newer envsnap"):
        load_fleet(tmp_path)


def test_one_unreadable_node_file_is_a_failed_node_not_a_failed_report(tmp_path: Path) -> None:
    _fleet(tmp_path, {"n1": make(), "n2": make()})
    (tmp_path / "n2.yaml").write_bytes(b"\x00binary")
    groups = group(load_fleet(tmp_path).nodes)
    assert groups.groups[0].nodes == ("n1",)
    assert groups.failed[0].name == "n2"
    assert "binary data" in (groups.failed[0].reason or "")


def test_escapes_markup_and_secrets_from_nodes_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = make(variables={"NCCL_DEBUG": "\x1b]0;owned\x07[bold red]x[/]", "HF_TOKEN": "hf_" + "a" * 34})
    _fleet(tmp_path, {"n1": make(), "n2": make(), "n3": hostile}, {"n4\x1b[2J": "x" * 100_000})
    (tmp_path / "fleet.yaml").write_text(
        (tmp_path / "fleet.yaml").read_text().replace("reason: xxx", "reason: hf_" + "b" * 34 + " xxx")
    )
    for fmt in ("text", "markdown", "json"):
        run(["fleet", "show", str(tmp_path), "--format", fmt])
        out = capsys.readouterr().out
        assert "\x1b" not in out
        assert "\x07" not in out
        assert "a" * 34 not in out
        if fmt == "text":
            assert "[bold red]x[/]" in out  # shown literally, never parsed as Rich markup
            assert "\\x1b]0;owned" in out
