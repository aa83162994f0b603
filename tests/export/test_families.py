"""The metric families of one node: names, labels and values read from the snapshot, cardinality bounded."""

from __future__ import annotations

import msgspec
import pytest

from envsnap.compare.diff import diff
from envsnap.compare.impact import IMPACTS, LAYERS
from envsnap.live.watch_state import VERDICTS, WatchState
from envsnap.render.prometheus import (
    STACK_LABELS,
    Drift,
    exposition,
    snapshot_families,
    stack_values,
    watch_families,
)
from envsnap.snapshot.model import AmdDevice, AmdInfo, Finding
from tests.export.helpers import PROBES, node, one, samples, series, with_driver, with_packages


def _text(snapshot: object, drift: Drift | None = None) -> str:
    return exposition(snapshot_families(snapshot, drift=drift))  # type: ignore[arg-type]


def test_stack_info_carries_the_stack_of_the_snapshot() -> None:
    snapshot = node()
    text = _text(snapshot)
    ((labels, value),) = series(text, "envsnap_stack_info")
    assert value == 1
    assert set(labels) <= set(STACK_LABELS)
    nvidia = snapshot.accelerators.nvidia  # type: ignore[union-attr]
    torch = snapshot.frameworks.torch  # type: ignore[union-attr]
    assert labels["driver"] == nvidia.driver_version  # type: ignore[union-attr]
    assert labels["cuda"] == nvidia.cuda_driver_version  # type: ignore[union-attr]
    assert labels["cuda_toolkit"] == snapshot.toolkits.cuda.version  # type: ignore[union-attr]
    assert labels["torch"] == torch.version  # type: ignore[union-attr]
    assert labels["python"] == snapshot.python.version  # type: ignore[union-attr]
    assert labels["fingerprint"] == snapshot.fingerprint
    # torch.version.cuda is None on a CPU build and ROCm is absent: an empty label (Prometheus: no label).
    assert labels.get("torch_cuda", "") == labels.get("rocm", "") == ""
    assert stack_values(snapshot)["torch_cuda"] == ""


def test_gpu_info_has_one_series_per_device_of_every_vendor() -> None:
    base = node()
    amd = AmdInfo(
        status="ok",
        driver_version="6.8.5",
        rocm_version="6.2.0",
        devices=(AmdDevice(index=0, name="AMD Instinct MI300X", gfx_target="gfx942", uuid="amd-uuid-0"),),
    )
    assert base.accelerators is not None
    accelerators = msgspec.structs.replace(base.accelerators, amd=amd)
    snapshot = msgspec.structs.replace(base, accelerators=accelerators)
    text = _text(snapshot)
    gpus = series(text, "envsnap_gpu_info")
    assert len(gpus) == 2
    h100 = snapshot.accelerators.nvidia.devices[0]  # type: ignore[union-attr,index]
    assert one(text, "envsnap_gpu_info", vendor="nvidia") == 1
    assert {"vendor": "nvidia", "index": "0", "name": h100.name, "uuid": h100.uuid,
            "compute_capability": h100.compute_capability}.items() <= gpus[0][0].items()  # fmt: skip
    assert (
        one(text, "envsnap_gpu_info", vendor="amd", compute_capability="gfx942", name="AMD Instinct MI300X")
        == 1
    )
    assert one(text, "envsnap_stack_info", rocm="6.2.0") == 1


def test_findings_are_one_series_per_rule_counting_its_findings() -> None:
    snapshot = node()
    assert snapshot.findings, "the CPU torch on an H100 host must raise findings"
    extra = Finding(id="driver-too-old-for-cuda-toolkit", severity="warning", title="twice", fix="upgrade")
    doubled = msgspec.structs.replace(snapshot, findings=(*snapshot.findings, extra))
    text = _text(doubled)
    expected: dict[tuple[str, str], int] = {}
    for finding in doubled.findings or ():
        expected[(finding.id, finding.severity)] = expected.get((finding.id, finding.severity), 0) + 1
    got = {(labels["id"], labels["severity"]): value for labels, value in series(text, "envsnap_findings")}
    assert got == expected
    assert got[("cpu-only-build-on-gpu-host", "error")] == 1


def test_probe_status_is_one_hot_per_probe() -> None:
    text = _text(node())
    for run in PROBES:
        values = {labels["status"]: value for labels, value in series(text, "envsnap_probe_status")
                  if labels["probe"] == run.name}  # fmt: skip
        assert values == {s: (1.0 if s == run.status else 0.0) for s in ("ok", "skipped", "failed")}
        assert one(text, "envsnap_probe_duration_seconds", probe=run.name) == run.duration_s


def test_last_probe_timestamp_is_the_capture_time() -> None:
    from datetime import datetime

    snapshot = node()
    stamp = datetime.fromisoformat(snapshot.meta.captured_at.replace("Z", "+00:00")).timestamp()
    assert one(_text(snapshot), "envsnap_last_probe_timestamp_seconds") == stamp


def test_drift_counts_every_impact_and_layer_and_a_downgrade_is_breaking() -> None:
    known = node()
    drifted = with_driver(known, "550.54.15")  # a downgrade from 590.48.01
    changes = diff(known, drifted)
    text = _text(drifted, Drift(changes, known.fingerprint))
    drift = series(text, "envsnap_drift_changes")
    layers = [layer for layer in LAYERS if layer != "telemetry"]
    assert {(labels["impact"], labels["layer"]) for labels, _ in drift} == {
        (i, la) for i in IMPACTS for la in layers
    }
    assert one(text, "envsnap_drift_changes", impact="breaking", layer="driver") == 1
    assert sum(value for _, value in drift) == len(changes)
    assert one(text, "envsnap_known_good_info", fingerprint=known.fingerprint or "") == 1
    same = _text(known, Drift(diff(known, known), known.fingerprint))
    assert all(value == 0 for _, value in series(same, "envsnap_drift_changes"))


def test_no_drift_series_without_a_known_good() -> None:
    assert series(_text(node()), "envsnap_drift_changes") == []


@pytest.mark.parametrize("count", [10, 3000])
def test_package_drift_is_counted_never_labelled(count: int) -> None:
    """3,000 changed packages add no series: the series set is the same as for 10."""
    known = with_packages(node(), count, version="1.0")
    drifted = with_packages(node(), count, version="2.0")
    text = _text(drifted, Drift(diff(known, drifted), known.fingerprint))
    assert (
        one(text, "envsnap_drift_changes", impact="notable", layer="packages")
        + one(text, "envsnap_drift_changes", impact="minor", layer="packages")
        + one(text, "envsnap_drift_changes", impact="breaking", layer="packages")
        == count
    )
    assert len(samples(text)) == len(samples(_text(node(), Drift((), known.fingerprint))))
    assert "pkg-00001" not in text
    assert one(text, "envsnap_packages_installed") == len(drifted.packages or ())


def test_watch_verdict_is_one_hot_per_watched_process() -> None:
    states = [
        WatchState(
            pid=4242, process="python3", verdict="cpu-fallback-suspected", active=True, updated_at=1e9
        ),
        WatchState(pid=77, process="torchrun", verdict="gpu-active", active=False, updated_at=1e9 + 5),
    ]
    text = exposition(watch_families(states))
    for state in states:
        values = {labels["verdict"]: value for labels, value in series(text, "envsnap_watch_verdict")
                  if labels["pid"] == str(state.pid)}  # fmt: skip
        assert values == {v: (1.0 if v == state.verdict else 0.0) for v in VERDICTS}
        ident = {"pid": str(state.pid), "process": state.process or ""}
        assert one(text, "envsnap_watch_active", **ident) == (1 if state.active else 0)
        assert one(text, "envsnap_watch_last_update_timestamp_seconds", **ident) == state.updated_at
    assert watch_families([]) == []


def test_every_family_has_help_and_type() -> None:
    known = node()
    text = _text(with_driver(known, "550.54.15"), Drift((), known.fingerprint))
    declared = {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}
    helped = {line.split()[2] for line in text.splitlines() if line.startswith("# HELP ")}
    assert declared == helped
    assert all(line.split()[3] == "gauge" for line in text.splitlines() if line.startswith("# TYPE "))
    assert {s.name for s in samples(text)} <= declared
