"""The fleet view: many snapshots, the majority value of each differing field, and the outliers."""

from __future__ import annotations

import msgspec
import pytest

from envsnap.fleet.view import ABSENT, fleet, host_labels
from envsnap.snapshot.model import Snapshot
from tests.fakes.diff_snapshots import A100, BASE_PACKAGES, T4, make, with_nvidia, with_torch


def _fleet_of(count: int, odd: dict[int, Snapshot]) -> tuple[list[Snapshot], list[str]]:
    snapshots = [odd.get(i) or make(hostname=f"gpu-{i:02d}") for i in range(count)]
    return snapshots, [f"gpu-{i:02d}" for i in range(count)]


def test_fifty_hosts_one_deviates_and_is_named() -> None:
    odd = with_torch(make(hostname="gpu-17", torch="2.4.1+cu124", torch_cuda="12.4"))
    snapshots, labels = _fleet_of(50, {17: odd})
    report = fleet(snapshots, labels)
    assert {f.path for f in report.fields} == {
        "frameworks.torch.cuda",
        "frameworks.torch.version",
        "packages[torch]",
    }
    for field in report.fields:
        assert [report.hosts[i] for i in field.deviants] == ["gpu-17"]
        assert field.majority_count == 49
        assert field.impact == "breaking"
    cuda = next(f for f in report.fields if f.path == "frameworks.torch.cuda")
    assert cuda.majority == "12.1"
    assert cuda.values[17] == "12.4"
    assert report.deviating_hosts() == {"gpu-17": 3}


def test_identical_fleet_has_no_fields() -> None:
    snapshots, labels = _fleet_of(5, {})
    assert fleet(snapshots, labels).fields == ()


def test_a_package_missing_on_some_hosts_is_one_field() -> None:
    """Its version, requirements and installer are not repeated as fields of their own."""
    without = tuple(row for row in BASE_PACKAGES if row[0] != "sympy")
    snapshots, labels = _fleet_of(6, {2: make(rows=without), 4: make(rows=without)})
    report = fleet(snapshots, labels)
    assert [(f.path, f.majority, f.majority_count) for f in report.fields] == [
        ("packages[sympy]", "1.14.0", 4)
    ]
    field = report.fields[0]
    assert [report.hosts[i] for i in field.deviants] == ["gpu-02", "gpu-04"]
    assert field.values[2] is ABSENT
    assert field.impact == "notable"


def test_worst_impact_over_all_deviating_values() -> None:
    up = with_nvidia(make(), driver_version="535.86.05")
    down = with_nvidia(make(), driver_version="515.105.01")
    snapshots, labels = _fleet_of(5, {1: up, 3: down})
    (field,) = fleet(snapshots, labels).fields
    assert field.path == "accelerators.nvidia.driver_version"
    assert field.majority == "535.54.03"
    assert field.impact == "breaking"


def test_gpu_model_differences_show_per_device_key() -> None:
    snapshots, labels = _fleet_of(4, {0: make(gpus=T4)})
    paths = {f.path for f in fleet(snapshots, labels).fields}
    assert "accelerators.nvidia.devices[Tesla T4#0]" in paths
    assert "accelerators.nvidia.devices[NVIDIA A100-SXM4-80GB#0]" in paths


def test_only_filters_layers() -> None:
    odd = with_nvidia(make(rows=(*BASE_PACKAGES, ("six", "1.17.0", ()))), driver_version="535.86.05")
    snapshots, labels = _fleet_of(3, {1: odd})
    assert {f.layer for f in fleet(snapshots, labels, only=["packages"]).fields} == {"packages"}
    with pytest.raises(ValueError, match="unknown layer"):
        fleet(snapshots, labels, only=["gpu"])


def test_host_labels_prefer_alias_then_hostname_then_file_stem() -> None:
    plain = make(gpus=A100)
    no_host = msgspec.structs.replace(plain, host=None)
    aliased = msgspec.structs.replace(
        plain, meta=msgspec.structs.replace(plain.meta, host_alias="host-1a2b3c")
    )
    labels = host_labels([aliased, plain, no_host], ["x/a.yaml", "x/b.yaml", "x/monday.yaml"])
    assert labels == ("host-1a2b3c", "gpu-a", "monday")


def test_repeated_hostnames_get_the_file_name() -> None:
    """Two snapshots of one host (before and after an upgrade) must stay apart in the report."""
    labels = host_labels([make(), make()], ["x/before.yaml", "x/after.yaml"])
    assert labels == ("gpu-a (before.yaml)", "gpu-a (after.yaml)")
    same = host_labels([make(), make()], ["same.yaml", "dir/same.yaml"])
    assert same == ("gpu-a (same.yaml)", "gpu-a (same.yaml) #2")


def test_a_tie_is_reported_and_resolved_by_host_order() -> None:
    """Two hosts on one driver, two on another: no majority; the first host's value is shown, flagged."""
    older = with_nvidia(make(), driver_version="535.54.03")
    newer = with_nvidia(make(), driver_version="535.86.05")
    for order, expected in (
        ([older, newer, older, newer], "535.54.03"),
        ([newer, older, older, newer], "535.86.05"),
    ):
        (field,) = fleet(order, [f"gpu-{i}" for i in range(4)]).fields
        assert field.tie
        assert field.majority == expected
        assert field.majority_count == 2
        assert len(field.deviants) == 2
    snapshots, labels = _fleet_of(5, {1: newer})
    assert not fleet(snapshots, labels).fields[0].tie
