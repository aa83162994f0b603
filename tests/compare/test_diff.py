"""The two-way diff: what counts as a change, how it is keyed, and how much it matters."""

from __future__ import annotations

import msgspec
import pytest

from envsnap.compare.diff import diff, summarize
from envsnap.compare.impact import LAYERS
from envsnap.snapshot.model import Accelerators, DeviceSample, NvidiaInfo, Sample, Snapshot
from tests.fakes.diff_snapshots import (
    A10G,
    A100,
    BASE_PACKAGES,
    T4,
    V100S_X8,
    make,
    nvidia,
    with_nvidia,
    with_torch,
)


def _by_path(changes: tuple[object, ...]) -> dict[str, tuple[str, object, object, str]]:
    return {c.path: (c.kind, c.old, c.new, c.impact) for c in changes}  # type: ignore[attr-defined]


def _rows(*changes: tuple[str, str]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    versions = dict(changes)
    return tuple((name, versions.get(name, version), req) for name, version, req in BASE_PACKAGES)


def test_identical_snapshots_have_no_changes() -> None:
    assert diff(make(), make()) == ()


def test_host_identity_is_not_a_change() -> None:
    """Hostname, GPU UUIDs and serials, and usernames in paths differ on every machine."""
    a, b = make(hostname="gpu-a"), make(hostname="gpu-b")
    assert a.python is not None
    assert b.python is not None
    assert a.python.executable != b.python.executable
    assert diff(a, b) == ()
    assert a.fingerprint == b.fingerprint


def test_torch_cuda_build_driver_and_one_package_changed() -> None:
    """The scenario of the issue: exactly these changes, with these impacts."""
    old = make()
    new = with_torch(
        make(rows=_rows(("filelock", "4.3.2")), torch="2.4.1+cu124", torch_cuda="12.4"),
    )
    new = with_nvidia(new, driver_version="535.86.05")  # a real later R535 driver (RTX 4090 capture)
    changes = _by_path(diff(old, new))
    assert changes == {
        "accelerators.nvidia.driver_version": ("changed", "535.54.03", "535.86.05", "notable"),
        "frameworks.torch.cuda": ("changed", "12.1", "12.4", "breaking"),
        "frameworks.torch.version": ("changed", "2.4.1+cu121", "2.4.1+cu124", "breaking"),
        "packages[torch]": ("changed", "2.4.1+cu121", "2.4.1+cu124", "breaking"),
        "packages[filelock]": ("changed", "4.3.1", "4.3.2", "minor"),
    }


def test_changes_come_sorted_by_layer_then_impact() -> None:
    old = make()
    new = with_nvidia(
        make(rows=_rows(("filelock", "4.3.2")), torch="2.4.1+cu124", torch_cuda="12.4"),
        driver_version="535.86.05",
    )
    changes = diff(old, new)
    layers = [LAYERS.index(c.layer) for c in changes]
    assert layers == sorted(layers)
    assert [c.layer for c in changes] == ["driver", "framework", "framework", "packages", "packages"]
    assert summarize(changes) == {"breaking": 3, "notable": 1, "minor": 1, "total": 5}


def test_driver_downgrade_is_breaking_and_upgrade_notable() -> None:
    a100, a10g = make(gpus=A100), nvidia(A10G)
    down = with_nvidia(a100, driver_version=a10g.driver_version)  # 535.54.03 -> 515.105.01
    assert _by_path(diff(a100, down))["accelerators.nvidia.driver_version"][3] == "breaking"
    assert _by_path(diff(down, a100))["accelerators.nvidia.driver_version"][3] == "notable"


def test_devices_are_matched_by_model_and_position_not_uuid() -> None:
    """Two 8-GPU hosts: every UUID, serial differs; the devices still line up one to one."""
    info = nvidia(V100S_X8)
    assert info.devices is not None
    assert len(info.devices) == 8
    uuids = [d.uuid for d in info.devices]
    serials = [d.serial for d in info.devices]
    other = msgspec.structs.replace(
        info,
        devices=tuple(
            msgspec.structs.replace(d, uuid=u, serial=s)
            for d, u, s in zip(info.devices, reversed(uuids), reversed(serials), strict=True)
        ),
    )
    a = make(gpus=V100S_X8)
    b = with_nvidia(a, devices=other.devices)
    assert [d.uuid for d in b.accelerators.nvidia.devices] != uuids  # type: ignore[union-attr]
    assert diff(a, b) == ()
    one_fewer = with_nvidia(a, devices=info.devices[:7])
    assert _by_path(diff(a, one_fewer)) == {
        "accelerators.nvidia.devices[Tesla V100S-PCIE-32GB#7]": (
            "removed",
            "Tesla V100S-PCIE-32GB",
            None,
            "breaking",
        )
    }


def test_gpu_model_change_is_one_change_breaking_when_compute_capability_differs() -> None:
    changes = diff(make(gpus=A100), make(gpus=T4))
    devices = [c for c in changes if c.layer == "devices"]
    assert len(devices) == 1
    assert (devices[0].kind, devices[0].old, devices[0].new, devices[0].impact) == (
        "changed",
        "NVIDIA A100-SXM4-80GB",
        "Tesla T4",
        "breaking",
    )


def test_gpu_model_change_with_the_same_compute_capability_is_notable() -> None:
    a10g = nvidia(A10G)
    assert a10g.devices is not None
    twin = msgspec.structs.replace(a10g.devices[0], name="NVIDIA A10")  # another 8.6 part, same slot
    a = make(gpus=A10G)
    b = with_nvidia(a, devices=(msgspec.structs.replace(twin, compute_capability="8.6"),))
    devices = [c for c in diff(a, b) if c.layer == "devices"]
    assert [(c.old, c.new, c.impact) for c in devices] == [("NVIDIA A10G", "NVIDIA A10", "notable")]


def test_a_section_that_stops_working_is_one_breaking_change() -> None:
    a = make()
    gone = NvidiaInfo(status="skipped", reason="libnvidia-ml.so.1 not found")
    b = msgspec.structs.replace(a, accelerators=Accelerators(nvidia=gone))
    assert _by_path(diff(a, b)) == {
        "accelerators.nvidia": ("changed", "ok", "skipped: libnvidia-ml.so.1 not found", "breaking")
    }
    assert _by_path(diff(b, a))["accelerators.nvidia"][3] == "notable"


def test_package_names_are_compared_normalized() -> None:
    a = make()
    renamed = tuple(
        (name.upper().replace("_", "-") if name == "typing_extensions" else name, version, req)
        for name, version, req in BASE_PACKAGES
    )
    assert diff(a, make(rows=renamed)) == ()


def test_package_added_and_removed_are_notable_but_removing_torch_is_breaking() -> None:
    a = make()
    fewer = tuple(row for row in BASE_PACKAGES if row[0] not in ("torch", "mpmath"))
    more = (*BASE_PACKAGES, ("six", "1.17.0", ()))
    removed = _by_path(diff(a, make(rows=fewer)))
    assert removed["packages[torch]"] == ("removed", "2.4.1+cu121", None, "breaking")
    assert removed["packages[mpmath]"] == ("removed", "1.3.0", None, "notable")
    assert not any(path.startswith("packages[torch].") for path in removed)  # one change per package
    assert _by_path(diff(a, make(rows=more))) == {"packages[six]": ("added", None, "1.17.0", "notable")}


@pytest.mark.parametrize(
    ("name", "old", "new", "impact"),
    [
        ("sympy", "1.14.0", "1.14.1", "minor"),
        ("sympy", "1.13.3", "1.14.0", "minor"),
        ("networkx", "2.8.8", "3.6.1", "notable"),
        ("fsspec", "0.8.5", "0.9.0", "notable"),
        ("torch", "2.4.1+cu121", "2.5.1+cu121", "breaking"),
        ("torch", "2.4.0+cu121", "2.4.1+cu121", "minor"),
        ("filelock", "4.3.1", "4.3.1+local", "breaking"),
        ("filelock", "4.3.1", "not-a-version", "notable"),
    ],
)
def test_package_version_impacts(name: str, old: str, new: str, impact: str) -> None:
    a = make(rows=_rows((name, old)), torch=old if name == "torch" else "2.4.1+cu121")
    b = make(rows=_rows((name, new)), torch=new if name == "torch" else "2.4.1+cu121")
    assert _by_path(diff(a, b, only=["packages"]))[f"packages[{name}]"] == ("changed", old, new, impact)


def test_environment_variables_that_steer_devices_and_libraries_are_notable() -> None:
    a = make(variables={"CUDA_HOME": "/usr/local/cuda-12.1", "OMP_NUM_THREADS": "8"})
    b = make(
        variables={
            "CUDA_HOME": "/usr/local/cuda-12.1",
            "OMP_NUM_THREADS": "16",
            "CUDA_VISIBLE_DEVICES": "0",
            "LD_LIBRARY_PATH": "/usr/local/cuda-12.1/lib64",
        }
    )
    changes = _by_path(diff(a, b))
    assert changes["environment.variables.CUDA_VISIBLE_DEVICES"][3] == "notable"
    assert changes["environment.variables.LD_LIBRARY_PATH"][3] == "notable"
    assert changes["environment.variables.OMP_NUM_THREADS"] == ("changed", "8", "16", "minor")


def test_dropping_an_architecture_from_the_build_is_breaking() -> None:
    a = make()
    newer = ("sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
    b = with_torch(a, arch_list=newer)
    assert _by_path(diff(a, b))["frameworks.torch.arch_list"][3] == "breaking"
    c = with_torch(b, arch_list=(*newer, "sm_121"))
    assert _by_path(diff(b, c))["frameworks.torch.arch_list"][3] == "notable"


def test_python_minor_version_is_breaking_and_patch_minor() -> None:
    a = make()
    assert a.python is not None
    minor = make(python=msgspec.structs.replace(a.python, version="3.12.8"))
    patch = make(python=msgspec.structs.replace(a.python, version="3.11.9"))
    assert _by_path(diff(a, minor))["python.version"] == ("changed", "3.11.7", "3.12.8", "breaking")
    assert _by_path(diff(a, patch))["python.version"][3] == "minor"


def test_host_memory_within_two_percent_is_noise() -> None:
    a = make()
    assert a.host is not None
    assert a.host.memory_total_bytes is not None
    total = a.host.memory_total_bytes
    close = make(host=msgspec.structs.replace(a.host, memory_total_bytes=total - total // 100))
    half = make(host=msgspec.structs.replace(a.host, memory_total_bytes=total // 2))
    assert diff(a, close) == ()
    assert _by_path(diff(a, half))["host.memory_total_bytes"][3] == "minor"


def test_only_keeps_the_named_layers_and_rejects_unknown_ones() -> None:
    old = make()
    new = with_nvidia(make(rows=_rows(("filelock", "4.3.2"))), driver_version="535.86.05")
    assert {c.layer for c in diff(old, new, only=["driver"])} == {"driver"}
    assert {c.layer for c in diff(old, new, only=["packages", "driver"])} == {"driver", "packages"}
    with pytest.raises(ValueError, match="unknown layer"):
        diff(old, new, only=["drivers"])


def _with_telemetry(snapshot: Snapshot, temperature_c: float) -> Snapshot:
    sample = Sample(
        captured_at="2026-11-29T12:00:00Z",
        devices=(
            DeviceSample(vendor="nvidia", index=0, name="NVIDIA A100-SXM4-80GB", temperature_c=temperature_c),
        ),
    )
    return msgspec.structs.replace(snapshot, telemetry=sample)


def test_telemetry_is_ignored_unless_asked_for() -> None:
    a, b = _with_telemetry(make(), 34.0), _with_telemetry(make(), 71.0)
    assert diff(a, b) == ()
    changes = diff(a, b, include_telemetry=True)
    assert [(c.layer, c.old, c.new, c.impact) for c in changes] == [("telemetry", 34.0, 71.0, "minor")]
    assert changes[0].path == "telemetry.devices[nvidia:NVIDIA A100-SXM4-80GB#0].temperature_c"


def test_findings_and_meta_are_not_compared() -> None:
    a = make()
    b = msgspec.structs.replace(
        a, meta=msgspec.structs.replace(a.meta, captured_at="2027-01-01T00:00:00Z"), findings=()
    )
    assert diff(a, b) == ()


def test_package_details_follow_the_version_and_unknown_details_are_not_changes() -> None:
    """A new release brings new Requires-Dist; a pip-freeze import knows no requirements at all."""
    a = make()
    newer = tuple(
        (n, "1.15.0", ("mpmath<1.5,>=1.1.0",)) if n == "sympy" else (n, v, r) for n, v, r in BASE_PACKAGES
    )
    assert _by_path(diff(a, make(rows=newer))) == {
        "packages[sympy]": ("changed", "1.14.0", "1.15.0", "minor")
    }
    rebuilt = tuple(
        (n, v, ("mpmath<1.5,>=1.1.0",)) if n == "sympy" else (n, v, r) for n, v, r in BASE_PACKAGES
    )
    assert list(_by_path(diff(a, make(rows=rebuilt)))) == ["packages[sympy].requires"]
    assert a.packages is not None
    imported = msgspec.structs.replace(
        a,
        packages=tuple(
            msgspec.structs.replace(p, requires=None, installer=None, source=None) for p in a.packages
        ),
    )
    assert diff(a, imported) == ()


def test_the_extension_scan_count_is_bookkeeping_not_a_change() -> None:
    # `extensions.scanned_files 0 → 2` is how much the probe read, not a change of the stack.
    from envsnap.snapshot.finalize import finalize
    from envsnap.snapshot.model import Extensions

    before = finalize(make(extensions=Extensions(status="ok", scanned_files=0, distributions=())))
    after = finalize(make(extensions=Extensions(status="ok", scanned_files=2, distributions=())))
    assert diff(before, after) == ()
    assert before.fingerprint == after.fingerprint


def test_fleet_and_two_way_diff_share_one_impact_model() -> None:
    # The same change must carry the same impact in `diff A B` and in the fleet view of A, A, B.
    from envsnap.fleet.view import fleet

    base = make()
    variants = [
        make(hostname="gpu-b", torch="2.4.1+cu124", torch_cuda="12.4"),
        make(rows=_rows(("MarkupSafe", "3.0.5"), ("sympy", "1.14.0"), ("networkx", "4.0"))),
        with_nvidia(make(), driver_version="550.54.15"),
        make(variables={"CUDA_VISIBLE_DEVICES": "1", "OMP_NUM_THREADS": "4"}),
    ]
    for other in variants:
        two_way = {c.path: c.impact for c in diff(base, other)}
        fleet_view = {f.path: f.impact for f in fleet([base, base, other], ["a", "b", "c"]).fields}
        assert two_way, "each variant differs from the base"
        assert fleet_view == two_way
